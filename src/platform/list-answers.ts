import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { integer, sqliteTable, text, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { Lru } from './lru';

/**
 * Per workspace, a number that moves with every write to the rows a module's lists show. Triggers
 * on those tables move it (in the same transaction as the write), so no write path can forget to.
 */
export const listGenerationsTable = (name: string) =>
  sqliteTable(name, {
    workspace_id: text('workspace_id').primaryKey(),
    generation: integer('generation').notNull(),
  });

/** The workspace's generation in `table` (0 before its first write), as SQL. */
export const generationIn = (table: SQLiteTable, ws: SQLWrapper): SQL =>
  sql`coalesce((SELECT generation FROM ${table} WHERE workspace_id = ${ws}), 0)`;

/** What a list statement read: nothing new when its data's generation is the one the caller knew. */
export type ListRead<T> = { generation: string | null } & ({ unchanged: true } | ({ unchanged: false } & T));

/** How a list is read for `ListAnswers`: the page `since` a known generation, or the generation alone. */
export type ListSource<T> = { since(known: string | null): Promise<ListRead<T>>; generation(): Promise<string | null> };

/**
 * Answers of one list kept in this instance, each with the generation of the data it was
 * computed from: a kept answer is served only while the data it shows has not changed (exact,
 * never stale, not a cache with a lifetime). `values` (the list statement's: workspace,
 * filters, paging) name everything else the answer depends on, and key it.
 *
 * Each read is one round trip. The list statement reads the generation first and computes the
 * page only when it differs from the kept one; once a kept answer has been found unchanged
 * ("steady"), it is checked by a statement reading the generation alone, which costs what a
 * one-row read does (the list statement is long, and compiled on every run). When that check
 * finds the data moved, the list statement follows (a second round trip, once), and the answer
 * is checked by the list statement again until it stands still: a list written often costs one
 * round trip per read, as one never written does.
 */
export class ListAnswers<A> {
  private readonly kept: Lru<{ generation: string; answer: A; steady: boolean }>;

  constructor(max = 200) {
    this.kept = new Lru(max);
  }

  async answer<T>(values: Record<string, unknown>, source: ListSource<T>, compute: (fresh: T) => A | Promise<A>): Promise<A> {
    const key = JSON.stringify(values);
    const kept = this.kept.get(key);
    if (kept?.steady && (await source.generation()) === kept.generation) return kept.answer;
    const result = await source.since(kept && !kept.steady ? kept.generation : null);
    if (result.unchanged && kept) {
      kept.steady = true;
      return kept.answer;
    }
    if (result.unchanged) throw new Error('a list read unchanged data without a kept answer');
    const answer = await compute(result);
    if (result.generation !== null) this.kept.set(key, { generation: result.generation, answer, steady: false });
    return answer;
  }
}
