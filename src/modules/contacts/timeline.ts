import { sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { builtOnce } from '../../platform/d1/built-once';
import type { Statement } from '../../platform/d1/db';
import { preparedInsert, preparedSql } from '../../platform/d1/prepared';
import type { RowGuard } from '../../platform/d1/row-guard';
import { uuidv7 } from '../../platform/ids';
import { contactActivities } from './schema';

/** A contact timeline row, for the caller's batch (consent and deal changes land on the timeline too). */
export function activity(
  ctx: ServiceContext,
  contactId: string,
  type: string,
  source: string,
  data: Record<string, unknown>,
  now: string,
  guard?: RowGuard,
): Statement {
  return activityInsert.in(ctx.db, { id: uuidv7(), workspace_id: ctx.ws.id, contact_id: contactId, type, source, data, created_at: now }, guard);
}

const activityInsert = preparedInsert(contactActivities);

/**
 * A timeline row written from a row of the caller's own that its batch wrote before it: `from`
 * (SQL from `FROM` on, naming that table and finding at most one row) gives the row's `contact`
 * id and `data` (a JSON object, SQL). Nothing is written when `from` finds nothing: the write it
 * describes did not happen. A module constant, built once per isolate.
 */
export type TimelineSource = { contact: SQL; data: SQL; from: SQL };

const timelineInsertFrom = builtOnce((source: TimelineSource) =>
  preparedSql('run', () => {
    const [id, ws, type, origin, at] = ['id', 'ws', 'type', 'source', 'at'].map((name) => sql.placeholder(name));
    return sql`INSERT INTO ${contactActivities} (id, workspace_id, contact_id, type, source, data, created_at)
      SELECT ${id}, ${ws}, ${source.contact}, ${type}, ${origin}, ${source.data}, ${at} ${source.from}`;
  }),
);

/** `activity` from a row the batch wrote (see `TimelineSource`); `values` are the placeholders of its SQL; `id` the row's, for statements guarded on it. */
export const activityFrom = (
  ctx: ServiceContext,
  source: TimelineSource,
  type: string,
  origin: string,
  values: Record<string, unknown>,
  now: string,
  id = uuidv7(),
): Statement => timelineInsertFrom(source).in(ctx.db, { ...values, id, ws: ctx.ws.id, type, source: origin, at: now });
