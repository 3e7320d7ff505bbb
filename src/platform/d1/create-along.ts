import type { ServiceContext } from '../context';
import { runBatch, type Statement } from './db';
import type { OutboxEvent } from '../events';

/** A create sent along with its reads: statements guarded on what the reads look for (see `RowGuard`), ending with the record's re-read, and the events they emit. */
export type CreateAlong = { statements: Statement[]; events: OutboxEvent[] };

/**
 * The reads and the create sent along with them (if any) in one batch: one round trip. When
 * `created` finds the record in the batch's results, the create happened and its events are
 * committed; otherwise it wrote nothing and the reads' results decide, as without it.
 */
export async function readWithCreate<T>(
  ctx: ServiceContext,
  reads: Statement[],
  along: CreateAlong | null,
  created: (results: unknown[]) => T | null | undefined,
) {
  const results = await runBatch(ctx.db, along ? [...reads, ...along.statements] : reads);
  const record = along ? (created(results) ?? null) : null;
  if (along && record !== null) ctx.events.committedAfter(along.events);
  return { results, created: record };
}
