import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guarded, nowIso, type Db, type Statement } from '../../platform/d1/db';
import { preparedInsert, preparedSql } from '../../platform/d1/prepared';
import { afterInsertOf, bothOf, guardable, type RowGuard } from '../../platform/d1/row-guard';
import type { OutboxEvent } from '../../platform/outbox';
import { uuidv7 } from '../../platform/ids';
import { CONTACT_CHANGED } from '../../platform/signals';
import { phoneBlacklisted } from '../blacklist';
import { recordIdentifiers } from './identity';
import { linkStatements, type LabelKind } from './labels/links';
import { planChanges, type Diffs, type LabelDiff, type NormalizedWrite } from './plan';
import { contactProjection, identifierHeld, type ContactRow } from './read';
import { contacts, CONTACT_SOURCES } from './schema';
import { activity } from './timeline';

/** A contact create sent along with its reads: the row it writes if its guards hold, its statements and events. */
export type CreatedAlong = { row: ContactRow; statements: Statement[]; events: OutboxEvent[] };

/**
 * The create an upsert most often ends in, put in the batch of its reads so that a new contact
 * takes one round trip instead of two: the contact is written only if, as the batch runs, no
 * contact holds (or last held) its phone or email and the phone is not blacklisted, and the
 * rest only if the contact was; otherwise the batch wrote nothing and its reads decide as
 * always. Every label named is inserted unless it exists (the reads have not said which do).
 * None under a contact cap (the count decides there), nor when the input could not create a
 * contact (the reads may find one to update). A caller re-reads the contact after them: a row
 * means it was created. `also`: a condition of the caller's own (a deal's, an order's), so that
 * the contact is created only along with what the caller creates.
 */
export function createAlongReads(
  ctx: ServiceContext,
  input: NormalizedWrite,
  opts: { source: string; createOnly?: NormalizedWrite },
  labels: Record<LabelKind, Map<string, string>>,
  also?: RowGuard,
): CreatedAlong | null {
  const cap = ctx.ws.caps.contacts;
  if (cap !== undefined && cap !== null) return null;
  const allMissing = (names: Map<string, string>): LabelDiff => ({ names, missingKeys: [...names.keys()], resolvedIds: [] });
  try {
    const diffs = { tags: allMissing(labels.tags), groups: allMissing(labels.groups) };
    return createStatements(
      ctx,
      { ...input, ...(opts.createOnly ?? {}) },
      diffs,
      false,
      opts.source,
      also ? bothOf(identityFree, also) : identityFree,
    );
  } catch {
    return null;
  }
}

/** The stored row of a new contact: identifiers as given, consent seeded (WhatsApp implied, email unknown). */
export function newContactRow(set: Record<string, unknown>, at: { id: string; workspaceId: string; source: string; now: string }) {
  const phone = (set.phone as string | null | undefined) ?? null;
  const email = (set.email as string | null | undefined) ?? null;
  return {
    ...set,
    id: at.id,
    workspace_id: at.workspaceId,
    source: at.source,
    phone,
    email,
    whatsapp_consent_state: phone ? 'subscribed' : null,
    whatsapp_consent_updated_at: phone ? at.now : null,
    email_consent_state: email ? 'unknown' : null,
    email_consent_updated_at: email ? at.now : null,
    created_at: at.now,
    updated_at: at.now,
  } as typeof contacts.$inferInsert & { phone: string | null; email: string | null };
}

/**
 * A new contact's statements; under a cap the insert re-counts, so parallel creates cannot overshoot it.
 * `speculative`: for the batch of the reads that decide whether to create (no cap applies), the
 * guard of the contact's insert (`identityFree`: no contact holds its phone or email and the phone
 * is not blacklisted, as the batch runs); every other statement writes only if it was inserted.
 * `silent`: no `contact.created` (CSV imports announce none).
 */
export function createStatements(
  ctx: ServiceContext,
  input: NormalizedWrite,
  diffs: Diffs,
  blacklisted: boolean,
  source: string,
  speculative?: RowGuard,
  silent = false,
) {
  const { db, ws } = ctx;
  const now = nowIso();
  const id = uuidv7();
  const { set } = planChanges(ws, null, input, blacklisted);
  const storedSource = set.source ?? ((CONTACT_SOURCES as readonly string[]).includes(source) ? source : 'api');
  const values = newContactRow(set, { id, workspaceId: ws.id, source: storedSource as string, now });
  const { phone, email } = values;
  const row = { ...nullRow, ...values, block_state: values.block_state ?? 'none', lead_score: values.lead_score ?? null } as unknown as ContactRow;
  const guard = speculative ? afterInsertOf(contacts, id) : undefined;
  const created = silent
    ? null
    : ctx.events.emit(db, ws.id, 'contact.created', { contact_id: id, contact: contactProjection(row), source, duplicate: false }, guard);
  const cap = ws.caps.contacts;
  const insert = speculative
    ? contactInsert.in(db, values, speculative)
    : cap === undefined || cap === null
      ? contactInsert.in(db, values)
      : db.insert(contacts).values({
          ...values,
          workspace_id: guarded(sql`(SELECT count(*) FROM ${contacts} WHERE ${contacts.workspace_id} = ${ws.id}) < ${cap}`, sql`${ws.id}`),
        });
  const statements: Statement[] = [insert];
  statements.push(...recordIdentifiers(db, ws.id, id, { phone, email }, now, guard), ...consentSeeds(db, ws.id, id, { phone, email }, now, guard));
  // A new contact of a scoring workspace gets the score its fields earn.
  if (ws.leadScoring) statements.push(...ctx.events.signal(db, ws.id, id, CONTACT_CHANGED, guard));
  for (const kind of ['tags', 'groups'] as const) {
    const { names, missingKeys } = diffs[kind];
    statements.push(...linkStatements(db, kind, { workspaceId: ws.id, contactId: id, names, missingKeys, mode: 'add', now, guard }));
  }
  statements.push(activity(ctx, id, 'created', source, {}, now, guard));
  if (!created) return { row, statements, events: [] };
  statements.push(created.statement);
  return { row, statements, events: [created.event] };
}

const contactInsert = preparedInsert(contacts);

/** A new contact's row is written only if nothing the upsert's reads look for is there (its values' own placeholders). */
const identityFree: RowGuard = {
  condition: sql`NOT ${identifierHeld('phone', sql.placeholder('workspace_id'), sql.placeholder('phone'))}
    AND NOT ${identifierHeld('email', sql.placeholder('workspace_id'), sql.placeholder('email'))}
    AND NOT ${phoneBlacklisted(sql.placeholder('workspace_id'), sql.placeholder('phone'))}`,
  values: {},
};

const nullRow = {
  lifecycle_stage: null,
  source: null,
  name: null,
  first_name: null,
  last_name: null,
  phone: null,
  email: null,
} as Partial<ContactRow>;

const seedInsert = guardable((condition) =>
  preparedSql(
    'run',
    () => sql`INSERT INTO consent_ledger (id, workspace_id, contact_id, channel, action, state, previous_state, source, basis, evidence, created_at)
  SELECT j.value ->> 'id', ${sql.placeholder('ws')}, ${sql.placeholder('contact')}, j.value ->> 'channel', 'seed', j.value ->> 'state', NULL, 'api', NULL, NULL, ${sql.placeholder('at')}
  FROM json_each(${sql.placeholder('rows')}) j WHERE ${condition}`,
  ),
);

/** A new contact's consent seed, one ledger row per channel it can be reached on: evidence, never an event. */
function consentSeeds(
  db: Db,
  workspaceId: string,
  contactId: string,
  ids: { phone: string | null; email: string | null },
  now: string,
  guard?: RowGuard,
): Statement[] {
  const rows = [
    ...(ids.phone ? [{ id: uuidv7(), channel: 'whatsapp', state: 'subscribed' }] : []),
    ...(ids.email ? [{ id: uuidv7(), channel: 'email', state: 'unknown' }] : []),
  ];
  return rows.length ? [seedInsert.in(db, { ws: workspaceId, contact: contactId, at: now, rows: JSON.stringify(rows) }, guard)] : [];
}
