import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/d1/db';
import type { OutboxEvent } from '../../platform/outbox';
import type { Read } from '../../platform/d1/typed-read';
import { uuidv7 } from '../../platform/ids';
import { preparedSql } from '../../platform/d1/prepared';
import { afterInsertOf } from '../../platform/d1/row-guard';
import { phoneBlacklisted } from '../blacklist';
import { planChanges, type NormalizedWrite } from './plan';
import { contactColumns, contactProjectionSql, type ContactRow } from './read';
import { contactActivities, contacts } from './schema';
import { activityFrom, type TimelineSource } from './timeline';
import { CONTACT_CHANGED } from '../../platform/signals';

/**
 * The update of an existing contact sent along with the upsert's reads, so that it takes one
 * round trip instead of two: an update, unlike a create, depends on the row it changes, so
 * the batch itself works out what changes. It applies only where the two-round-trip upsert
 * would surely update that same contact with nothing else to decide: a contact holds exactly
 * the phone and email sent (so neither moves and no merge can be needed), the phone is not
 * blacklisted, and the body names no labels, custom fields, block state, or first/last name
 * without a name (each of those is decided from the row in JavaScript). Then, in order:
 *
 * 1. the timeline row is written from the contact as it was, with `changed_fields` computed
 *    there (the fields whose value differs, in the order the two-round-trip update lists them),
 *    and only when that list is not empty;
 * 2. the contact is updated, only if that timeline row was written;
 * 3. `contact.updated` is written from the contact as updated and the timeline row;
 * 4. the contact is read back, only if it was updated.
 *
 * When that re-read finds nothing, nothing was written and the reads decide as before.
 */
export type UpdatedAlong = { statements: Statement[]; events: OutboxEvent[]; reread: Read<ContactRow[]> };

/** Fields whose write is decided from the stored row (see above). */
const DECIDED_FROM_ROW = ['tags', 'groups', 'custom_fields', 'block_state'] as const;

export function updateAlongReads(ctx: ServiceContext, input: NormalizedWrite, source: string): UpdatedAlong | null {
  const { phone, email } = input;
  if (phone === null || email === null || (phone === undefined && email === undefined)) return null;
  if (DECIDED_FROM_ROW.some((field) => input[field] !== undefined)) return null;
  if (input.name === undefined && (input.first_name !== undefined || input.last_name !== undefined)) return null;
  const { set } = planChanges(ctx.ws, null, input, false);
  const fields = Object.keys(set).filter((field) => field !== 'phone' && field !== 'email');
  if (fields.length === 0) return null;

  const shape = variantOf({ phone: phone !== undefined, email: email !== undefined, fields });
  const now = nowIso();
  const activity = uuidv7();
  const values: Record<string, unknown> = { phone: phone ?? null, email: email ?? null };
  for (const field of fields) values[`v_${field}`] = set[field];
  const written = afterInsertOf(contactActivities, activity);
  const { event, statement } = ctx.events.emitFrom(ctx.db, ctx.ws.id, 'contact.updated', updatedEventData, { activity }, written);
  const statements = [
    activityFrom(ctx, shape.timeline, 'updated', source, values, now, activity),
    shape.update.in(ctx.db, { ...values, ws: ctx.ws.id, at: now, activity }),
    statement,
    ...(ctx.ws.leadScoring ? ctx.events.signal(ctx.db, ctx.ws.id, email ? { email } : { phone: phone! }, CONTACT_CHANGED, written) : []),
  ];
  return { statements, events: [event], reread: updatedContact.in(ctx.db, { ws: ctx.ws.id, activity }) };
}

type Shape = { phone: boolean; email: boolean; fields: string[] };
type Variant = { timeline: TimelineSource; update: ReturnType<typeof preparedSql> };

/** Statements built per shape of body (which identifiers, which fields), kept for the bodies a client keeps sending. */
const variants = new Map<string, Variant>();
const MAX_VARIANTS = 256;

function variantOf(shape: Shape): Variant {
  const key = `${+shape.phone}${+shape.email}:${shape.fields.join(',')}`;
  let found = variants.get(key);
  if (!found) {
    if (variants.size >= MAX_VARIANTS) variants.clear();
    variants.set(key, (found = buildVariant(shape)));
  }
  return found;
}

const columnOf = (field: string) => sql.identifier((getTableColumns(contacts) as Record<string, { name: string }>)[field].name);

function buildVariant({ phone, email, fields }: Shape): Variant {
  const ws = sql.placeholder('ws');
  const holds: SQL[] = [sql`c.workspace_id = ${ws}`];
  if (phone) holds.push(sql`c.phone = ${sql.placeholder('phone')}`, sql`NOT ${phoneBlacklisted(ws, sql.placeholder('phone'))}`);
  if (email) holds.push(sql`c.email = ${sql.placeholder('email')}`);
  const differs = fields.map((field) => sql`iif(c.${columnOf(field)} IS ${sql.placeholder(`v_${field}`)}, '', ${sql.raw(`'"${field}",'`)})`);
  const list = sql`'[' || rtrim(${sql.join(differs, sql` || `)}, ',') || ']'`;
  const timeline: TimelineSource = {
    contact: sql`u.id`,
    data: sql`json_object('changed_fields', json(u.list))`,
    from: sql`FROM (SELECT c.id AS id, ${list} AS list FROM contacts c WHERE ${sql.join(holds, sql` AND `)}) u WHERE u.list <> '[]'`,
  };
  const sets = fields.map((field) => sql`${columnOf(field)} = ${sql.placeholder(`v_${field}`)}`);
  const update = preparedSql(
    'run',
    () => sql`UPDATE contacts SET ${sql.join(sets, sql`, `)}, updated_at = ${sql.placeholder('at')}
    WHERE workspace_id = ${ws} AND id = ${timelineContact}`,
  );
  return { timeline, update };
}

/** The contact of the timeline row the batch wrote (placeholders `ws` and `activity`): NULL when it wrote none. */
const timelineContact = sql`(SELECT contact_id FROM contact_activities WHERE workspace_id = ${sql.placeholder('ws')} AND id = ${sql.placeholder('activity')})`;

const updatedContact = preparedSql<ContactRow, 'all'>(
  'all',
  () => sql`SELECT ${contactColumns} FROM contacts c WHERE c.workspace_id = ${sql.placeholder('ws')} AND c.id = ${timelineContact}`,
);

/**
 * The data of `contact.updated` (`contactProjection`, `source`, `changed_fields`) as SQL, from the
 * contact as updated and its timeline row (placeholders `activity` and `ws`). Same keys in the
 * same order as the two-round-trip update's; a test holds the two equal.
 */
const updatedEventData = sql`(SELECT json_object('contact_id', c.id, 'contact', ${contactProjectionSql}, 'source', a.source, 'changed_fields', json(a.data -> '$.changed_fields'))
  FROM contact_activities a JOIN contacts c ON c.workspace_id = a.workspace_id AND c.id = a.contact_id
  WHERE a.workspace_id = ${sql.placeholder('ws')} AND a.id = ${sql.placeholder('activity')})`;
