import { and, count, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guarded, nowIso, retryOnConflict, optionalReads, runBatch, type Db, type Statement } from '../../platform/d1/db';
import { failedOn, guardOf, lostRaceOn, uniqueOn } from '../../platform/d1/constraints';
import { preparedInsert, preparedSql } from '../../platform/d1/prepared';
import type { OutboxEvent } from '../../platform/events';
import { uuidv7 } from '../../platform/ids';
import { afterInsertOf, bothOf, guardable, type RowGuard } from '../../platform/d1/row-guard';
import { blacklistLookup, phoneBlacklisted } from '../blacklist';
import { findLabels, linkStatements, uniqueNames, type LabelKind } from './labels/links';
import type { ContactWriteInput } from './fields';
import { normalizeEmail, normalizePhone, recordIdentifiers } from './identity';
import { openMergeRequest } from './merge';
import { labelsChange, planChanges, type LabelDiff, type NormalizedWrite } from './plan';
import { contactProjection, identifierHeld, readContactAnswer, selectContact, selectIdentifierHolder, type ContactRow } from './read';
import { contacts, CONTACT_SOURCES } from './schema';
import { activity } from './timeline';
import { readWithCreate } from '../../platform/d1/create-along';
import { updateAlongReads } from './update-along';
import { SharedErrors } from '../../platform/shared-errors';
import { ContactErrors } from './errors';
import { CONTACT_CHANGED } from '../../platform/signals';

export type WriteOptions = {
  /** Surface recorded on events and activity rows (`api`, `form`, ...). */
  source: string;
  /** Fields applied only when the write creates the contact (name on contact references). */
  createOnly?: NormalizedWrite;
};

export type UpsertResult = { row: ContactRow; duplicate: boolean };

export function normalizeWrite(ctx: ServiceContext, input: ContactWriteInput): NormalizedWrite {
  const out: NormalizedWrite = { ...input };
  if (typeof input.phone === 'string') out.phone = normalizePhone(input.phone, ctx.ws.defaultCountry);
  if (typeof input.email === 'string') out.email = normalizeEmail(input.email);
  return out;
}

type Reads = { labels: Record<LabelKind, { id: string; name_key: string }[]>; blacklisted: boolean };

type ReadPlan = ReturnType<typeof optionalReads>;

/** The label and blacklist reads a write needs (only those its input calls for), added to the caller's read batch. */
function sharedReads(ctx: ServiceContext, reads: ReadPlan, input: NormalizedWrite, phone: string | null | undefined) {
  const tagNames = uniqueNames(input.tags ?? []);
  const groupNames = uniqueNames(input.groups ?? []);
  const slots = {
    tags: reads.add(tagNames.size > 0 && findLabels(ctx.db, 'tags', ctx.ws.id, [...tagNames.keys()])),
    groups: reads.add(groupNames.size > 0 && findLabels(ctx.db, 'groups', ctx.ws.id, [...groupNames.keys()])),
    blacklist: reads.add(!!phone && blacklistLookup(ctx.db, ctx.ws.id, phone)),
  };
  const read = (results: unknown[]): Reads => ({
    labels: { tags: reads.get(results, slots.tags, []), groups: reads.get(results, slots.groups, []) },
    blacklisted: reads.get<unknown[]>(results, slots.blacklist, []).length > 0,
  });
  return { read, names: { tags: tagNames, groups: groupNames } };
}

function labelDiff(names: Map<string, string>, found: { id: string; name_key: string }[]): LabelDiff {
  const byKey = new Map(found.map((f) => [f.name_key, f.id]));
  return {
    names,
    missingKeys: [...names.keys()].filter((k) => !byKey.has(k)),
    resolvedIds: [...names.keys()].flatMap((k) => (byKey.has(k) ? [byKey.get(k)!] : [])),
  };
}

/**
 * A contact write prepared for the caller's own batch: the contact as it will
 * be (`row`, not re-read), the statements that write it (none when nothing
 * changes), the events to announce once that batch committed, and how to read
 * a failure of that batch (the contact cap guard).
 */
export type PlannedContactWrite = {
  row: ContactRow;
  duplicate: boolean;
  writes: Statement[];
  events: OutboxEvent[];
  mapError: (err: unknown) => unknown;
};

/** The reads an upsert needs, for the caller's read batch, and what to write given their results. */
export type UpsertPlan = {
  reads: Statement[];
  resolve: (results: unknown[]) => Promise<PlannedContactWrite>;
  /** The create to send along with the reads (see `createAlongReads`), its insert also guarded on `also`; null when none may be. */
  createAlong: (also?: RowGuard) => CreatedAlong | null;
};

/** A contact create sent along with its reads: the row it writes if its guards hold, its statements and events. */
export type CreatedAlong = { row: ContactRow; statements: Statement[]; events: OutboxEvent[] };

/**
 * POST /v1/contacts rules 1-7: history-aware phone-then-email resolution,
 * update on a match (scalars overwrite, custom fields merge, labels only added),
 * create otherwise. A create that loses a race on the unique identifier indexes
 * is retried and then finds the winner, so one identity gives one contact.
 */
export async function upsertContact(ctx: ServiceContext, input: NormalizedWrite, opts: WriteOptions): Promise<UpsertResult> {
  return retryOnConflict(() => upsertOnce(ctx, input, opts), identityTaken);
}

/**
 * Whether a batch lost to a parallel write of the same phone or email (their unique keys): whatever
 * writes a contact (here, or in another module's batch through a contact reference) retries on it
 * and finds the winner.
 */
export const identityTaken = lostRaceOn(uniqueOn(contacts.workspace_id, contacts.phone), uniqueOn(contacts.workspace_id, contacts.email));

async function upsertOnce(ctx: ServiceContext, input: NormalizedWrite, opts: WriteOptions): Promise<UpsertResult> {
  const plan = planUpsert(ctx, input, opts);
  // The update first: once it wrote, the create's guard finds the identity held.
  const update = updateAlongReads(ctx, input, opts.source);
  const reads = update ? [...plan.reads, ...update.statements] : plan.reads;
  const bet = plan.createAlong();
  const along = bet && { statements: [...bet.statements, selectContact(ctx.db, ctx.ws.id, bet.row.id)], events: bet.events };
  const { results, created } = await readWithCreate(ctx, reads, along, (r) => (r.at(-1) as ContactRow[])[0]);
  if (created) return { row: created, duplicate: false };
  const updated = update?.updated(results[reads.length - 1]);
  if (update && updated) {
    ctx.events.committedAfter(update.events);
    return { row: updated, duplicate: true };
  }
  const planned = await plan.resolve(results);
  if (planned.writes.length === 0) return { row: planned.row, duplicate: planned.duplicate };
  const out = await runBatch(ctx.db, [...planned.writes, selectContact(ctx.db, ctx.ws.id, planned.row.id)]).catch((err) => {
    throw planned.mapError(err);
  });
  ctx.events.committedAfter(planned.events);
  return { row: (out[out.length - 1] as ContactRow[])[0], duplicate: planned.duplicate };
}

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
function createAlongReads(
  ctx: ServiceContext,
  input: NormalizedWrite,
  opts: WriteOptions,
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

/**
 * The upsert as reads plus a continuation, so a caller (deals) can fold the
 * contact's reads and writes into its own two batches. A merge conflict opens
 * its merge request and throws 409; a retry after a failure on the identity
 * keys (`identityTaken`) must start again from a new plan.
 */
export function planUpsert(ctx: ServiceContext, input: NormalizedWrite, opts: WriteOptions): UpsertPlan {
  const { db, ws } = ctx;
  const phone = input.phone ?? null;
  const email = input.email ?? null;
  const reads = optionalReads();
  const shared = sharedReads(ctx, reads, input, phone);
  const cap = ws.caps.contacts;
  const capped = cap !== undefined && cap !== null;
  const slots = {
    phone: reads.add(!!phone && selectIdentifierHolder(db, ws.id, 'phone', phone)),
    email: reads.add(!!email && selectIdentifierHolder(db, ws.id, 'email', email)),
    // Counting is only paid for when a cap applies.
    total: reads.add(capped && db.select({ n: count() }).from(contacts).where(eq(contacts.workspace_id, ws.id))),
  };
  const resolve = async (results: unknown[]): Promise<PlannedContactWrite> => {
    const found = shared.read(results);
    const phoneOwner = reads.get<ContactRow[]>(results, slots.phone, [])[0] ?? null;
    const emailOwner = reads.get<ContactRow[]>(results, slots.email, [])[0] ?? null;
    const total = reads.get(results, slots.total, [{ n: 0 }])[0].n;

    if (phone && found.blacklisted) throw ContactErrors.phoneBlacklisted();
    if (phoneOwner && emailOwner && phoneOwner.id !== emailOwner.id) {
      const { phone: _p, email: _e, ...parked } = input;
      const mergeRequestId = await openMergeRequest(ctx, {
        targetId: phoneOwner.id,
        otherId: emailOwner.id,
        origin: 'create',
        identity: { phone, email },
        parked,
      });
      throw ContactErrors.mergeRequired({ merge_request_id: mergeRequestId });
    }
    const diffs = { tags: labelDiff(shared.names.tags, found.labels.tags), groups: labelDiff(shared.names.groups, found.labels.groups) };
    const target = phoneOwner ?? emailOwner;
    if (target) {
      const update = updateStatements(ctx, target, input, diffs, 'add', found.blacklisted, opts.source);
      return { row: update?.row ?? target, duplicate: true, writes: update?.statements ?? [], events: update?.events ?? [], mapError: (err) => err };
    }
    if (capped && total >= cap) throw ContactErrors.limitReached({ cap });
    const created = createStatements(ctx, { ...input, ...(opts.createOnly ?? {}) }, diffs, found.blacklisted, opts.source);
    return {
      ...created,
      duplicate: false,
      writes: created.statements,
      mapError: (err) => (capped && failedOn(err, guardOf(contacts.workspace_id)) ? ContactErrors.limitReached({ cap }) : err),
    };
  };
  return { reads: reads.statements, resolve, createAlong: (also) => createAlongReads(ctx, input, opts, shared.names, also) };
}

export type Diffs = Record<LabelKind, LabelDiff>;

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

/**
 * Applies a write to an existing contact in one batch: the row, identifier
 * history, label links, an activity row, `contact.updated` and the re-read.
 * Nothing changed means nothing written and no event.
 */
export async function applyUpdate(
  ctx: ServiceContext,
  existing: ContactRow,
  input: NormalizedWrite,
  diffs: Diffs,
  labelMode: 'add' | 'replace',
  blacklisted: boolean,
  source: string,
  opts: { silent?: boolean } = {},
): Promise<ContactRow> {
  const update = updateStatements(ctx, existing, input, diffs, labelMode, blacklisted, source, opts);
  if (!update) return existing;
  const out = await runBatch(ctx.db, [...update.statements, selectContact(ctx.db, ctx.ws.id, existing.id)]);
  const row = (out[out.length - 1] as ContactRow[])[0];
  // Erased between the read and this batch: nothing was written, and the contact is gone.
  if (!row) throw SharedErrors.contactIdNotFound({ id: existing.id });
  ctx.events.committedAfter(update.events);
  return row;
}

/** The statements of an update (null when nothing changes) and the contact as it will be. */
export function updateStatements(
  ctx: ServiceContext,
  existing: ContactRow,
  input: NormalizedWrite,
  diffs: Diffs,
  labelMode: 'add' | 'replace',
  blacklisted: boolean,
  source: string,
  opts: { silent?: boolean } = {},
): { row: ContactRow; statements: Statement[]; events: OutboxEvent[] } | null {
  const { db, ws } = ctx;
  const now = nowIso();
  // A block records its source from the phone the contact ends up with.
  const phoneBlacklisted = input.phone === undefined ? existing.phone_blacklisted === 1 : input.phone !== null && blacklisted;
  const plan = planChanges(ws, existing, input, phoneBlacklisted);
  const current: Record<LabelKind, string[]> = { tags: JSON.parse(existing.tag_ids), groups: JSON.parse(existing.group_ids) };
  const statements: Statement[] = [];
  const changed = [...plan.changed];
  for (const kind of ['tags', 'groups'] as const) {
    const named = input[kind] !== undefined;
    if (!named || !labelsChange(current[kind], diffs[kind], labelMode)) continue;
    changed.push(kind);
    statements.push(
      ...linkStatements(db, kind, {
        workspaceId: ws.id,
        contactId: existing.id,
        names: diffs[kind].names,
        missingKeys: diffs[kind].missingKeys,
        mode: labelMode,
        now,
      }),
    );
  }
  if (changed.length === 0) return null;
  statements.unshift(
    db
      .update(contacts)
      .set({ ...(plan.set as Partial<typeof contacts.$inferInsert>), updated_at: now })
      .where(and(eq(contacts.workspace_id, ws.id), eq(contacts.id, existing.id))),
  );
  // What follows the update is written only while the contact exists: an erasure that won the race leaves nothing behind.
  const alive = afterInsertOf(contacts, existing.id);
  statements.push(...recordIdentifiers(db, ws.id, existing.id, plan.set, now, alive));
  statements.push(activity(ctx, existing.id, 'updated', source, { changed_fields: changed }, now, alive));
  if (ws.leadScoring) statements.push(...ctx.events.signal(db, ws.id, existing.id, CONTACT_CHANGED, alive));
  const row = { ...existing, ...plan.set } as ContactRow;
  const events: OutboxEvent[] = [];
  if (!opts.silent) {
    const updated = ctx.events.emit(
      db,
      ws.id,
      'contact.updated',
      {
        contact_id: existing.id,
        contact: contactProjection(row),
        source,
        changed_fields: changed,
      },
      alive,
    );
    statements.push(updated.statement);
    events.push(updated.event);
  }
  return { row, statements, events };
}

/**
 * PATCH /v1/contacts/{id}: labels replace the set; moving the phone or email
 * onto an identifier another contact holds (or last held) writes nothing and
 * opens a merge request holding the sent fields.
 */
export async function patchContact(ctx: ServiceContext, id: string, input: NormalizedWrite): Promise<ContactRow> {
  return retryOnConflict(() => patchOnce(ctx, id, input), identityTaken);
}

async function patchOnce(ctx: ServiceContext, id: string, input: NormalizedWrite): Promise<ContactRow> {
  const { db, ws } = ctx;
  const plan = optionalReads();
  const shared = sharedReads(ctx, plan, input, input.phone);
  const slots = {
    existing: plan.add(selectContact(db, ws.id, id)),
    phone: plan.add(typeof input.phone === 'string' && selectIdentifierHolder(db, ws.id, 'phone', input.phone)),
    email: plan.add(typeof input.email === 'string' && selectIdentifierHolder(db, ws.id, 'email', input.email)),
  };
  const results = await runBatch(db, plan.statements);
  const reads = shared.read(results);
  const existing = plan.get<ContactRow[]>(results, slots.existing, [])[0];
  if (!existing) throw ContactErrors.notFound({ id });
  const phoneChanges = typeof input.phone === 'string' && input.phone !== existing.phone;
  const emailChanges = typeof input.email === 'string' && input.email !== existing.email;
  if (phoneChanges && reads.blacklisted) throw ContactErrors.phoneBlacklisted();
  const phoneHolder = phoneChanges ? plan.get<ContactRow[]>(results, slots.phone, [])[0] : undefined;
  const emailHolder = emailChanges ? plan.get<ContactRow[]>(results, slots.email, [])[0] : undefined;
  const other = [phoneHolder, emailHolder].find((h) => h && h.id !== existing.id);
  if (other) {
    const { phone, email, ...parked } = input;
    const mergeRequestId = await openMergeRequest(ctx, {
      targetId: existing.id,
      otherId: other.id,
      origin: 'update',
      identity: { ...(phone !== undefined ? { phone } : {}), ...(email !== undefined ? { email } : {}) },
      parked,
    });
    throw ContactErrors.mergeRequiredOnUpdate({ merge_request_id: mergeRequestId });
  }
  const diffs = { tags: labelDiff(shared.names.tags, reads.labels.tags), groups: labelDiff(shared.names.groups, reads.labels.groups) };
  return applyUpdate(ctx, existing, input, diffs, 'replace', reads.blacklisted, 'api');
}

/** Reads and label look-ups for applying parked fields at merge-request resolution. */
export async function applyParked(
  ctx: ServiceContext,
  existing: ContactRow,
  input: NormalizedWrite,
  labelMode: 'add' | 'replace',
  opts: { silent: boolean },
): Promise<ContactRow> {
  const plan = optionalReads();
  const shared = sharedReads(ctx, plan, input, existing.phone);
  const reads = shared.read(await runBatch(ctx.db, plan.statements));
  const diffs = { tags: labelDiff(shared.names.tags, reads.labels.tags), groups: labelDiff(shared.names.groups, reads.labels.groups) };
  return applyUpdate(ctx, existing, input, diffs, labelMode, reads.blacklisted, 'api', opts);
}

/** The contact's answer as JSON text, written by SQLite as a list page's are (`answeredJson`). */
export async function getContact(ctx: ServiceContext, id: string): Promise<string> {
  const answer = await readContactAnswer(ctx.db, ctx.ws.id, id);
  if (answer === undefined) throw SharedErrors.contactIdNotFound({ id });
  return answer;
}
