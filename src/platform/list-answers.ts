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

/**
 * Answers of one list kept in this instance, each with the generation of the data it was
 * computed from. The list statement reads the generation first and computes the page only when
 * it differs from the kept one (one round trip either way), so a kept answer is served only
 * while the data it shows has not changed: exact, never stale, not a cache with a lifetime.
 * `values` (the list statement's: workspace, filters, paging) name everything else the answer
 * depends on, and key it.
 */
export class ListAnswers<A> {
  private readonly kept: Lru<{ generation: string; answer: A }>;

  constructor(max = 200) {
    this.kept = new Lru(max);
  }

  async answer<T>(values: Record<string, unknown>, read: (known: string | null) => Promise<ListRead<T>>, compute: (fresh: T) => A): Promise<A> {
    const key = JSON.stringify(values);
    const kept = this.kept.get(key);
    const result = await read(kept?.generation ?? null);
    if (result.unchanged && kept) return kept.answer;
    if (result.unchanged) throw new Error('a list read unchanged data without a kept answer');
    const answer = compute(result);
    if (result.generation !== null) this.kept.set(key, { generation: result.generation, answer });
    return answer;
  }
}
