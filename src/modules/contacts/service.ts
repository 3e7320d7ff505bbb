import { and, count, eq } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/d1/db';
import { failedOn, guardOf, lostRaceOn, uniqueOn } from '../../platform/d1/constraints';
import { planOf, runOperation, unchanged, type Decided, type ReadPlan, type WriteBatch } from '../../platform/d1/operation';
import type { OutboxEvent } from '../../platform/outbox';
import { afterInsertOf, type RowGuard } from '../../platform/d1/row-guard';
import { blacklistLookup } from '../blacklist';
import { findLabels, type LabelKind, type LabelMode, linkStatements, uniqueNames } from './labels/links';
import { createAlongReads, createStatements, type CreatedAlong } from './create';
import type { ContactWriteInput } from './fields';
import { normalizeEmail, normalizePhone, recordIdentifiers } from './identity';
import { openMergeRequest } from './merge';
import { labelsChange, planChanges, type Diffs, type LabelDiff, type NormalizedWrite } from './plan';
import { contactProjection, readContactAnswer, selectContact, selectIdentifierHolder, type ContactRow } from './read';
import { contacts } from './schema';
import { activity } from './timeline';
import { updateAlongReads } from './update-along';
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

/** The label and blacklist reads a write needs (only those its input calls for), named for the caller's reads, and the names they look up. */
function labelAndBlacklistReads(ctx: ServiceContext, input: NormalizedWrite, phone: string | null | undefined) {
  const names = { tags: uniqueNames(input.tags ?? []), groups: uniqueNames(input.groups ?? []) };
  const reads = {
    tags: names.tags.size > 0 && findLabels(ctx.db, 'tags', ctx.ws.id, [...names.tags.keys()]),
    groups: names.groups.size > 0 && findLabels(ctx.db, 'groups', ctx.ws.id, [...names.groups.keys()]),
    blacklist: !!phone && blacklistLookup(ctx.db, ctx.ws.id, phone),
  };
  return { names, reads };
}

type FoundLabels = Record<LabelKind, { id: string; name_key: string }[]>;

/** A write's label changes: the labels it names, those found resolved and the rest to create. */
function diffsOf(names: Record<LabelKind, Map<string, string>>, found: FoundLabels): Diffs {
  const diff = (kind: LabelKind): LabelDiff => {
    const byKey = new Map(found[kind].map((f) => [f.name_key, f.id]));
    const keys = [...names[kind].keys()];
    return {
      names: names[kind],
      missingKeys: keys.filter((k) => !byKey.has(k)),
      resolvedIds: keys.flatMap((k) => (byKey.has(k) ? [byKey.get(k)!] : [])),
    };
  };
  return { tags: diff('tags'), groups: diff('groups') };
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
export type UpsertPlan = ReadPlan<PlannedContactWrite> & {
  /** The create to send along with the reads (see `createAlongReads`), its insert also guarded on `also`; null when none may be. */
  createAlong: (also?: RowGuard) => CreatedAlong | null;
};

/**
 * POST /v1/contacts rules 1-7: history-aware phone-then-email resolution,
 * update on a match (scalars overwrite, custom fields merge, labels only added),
 * create otherwise. A create that loses a race on the unique identifier indexes
 * runs again and then finds the winner, so one identity gives one contact. The
 * update or the create it most often ends in rides along with the reads (one
 * round trip); otherwise the reads decide and one write batch follows.
 */
export function upsertContact(ctx: ServiceContext, input: NormalizedWrite, opts: WriteOptions): Promise<UpsertResult> {
  // Planned for each attempt: the writes sent along are new ones each time.
  return runOperation(ctx, () => {
    const plan = planUpsert(ctx, input, opts);
    const update = updateAlongReads(ctx, input, opts.source);
    const create = plan.createAlong();
    return {
      along: [
        // The update first: once it wrote, the create's guard finds the identity held.
        update && { ...update, done: (read) => read.updated[0] && { row: read.updated[0], duplicate: true } },
        create && { ...create, done: (read) => read.created[0] && { row: read.created[0], duplicate: false } },
      ],
      reads: {
        contact: plan,
        updated: update?.reread,
        // A row back: the create sent along wrote the contact.
        created: create && selectContact(ctx.db, ctx.ws.id, create.row.id),
      },
      decide: async (read, batch) => {
        const planned = await read.contact();
        if (planned.writes.length === 0) return unchanged({ row: planned.row, duplicate: planned.duplicate });
        const reread = selectContact(ctx.db, ctx.ws.id, planned.row.id);
        return batch.join(planned).answer(reread, ([row]) => ({ row, duplicate: planned.duplicate }));
      },
    };
  });
}

/** The unique keys of a contact's phone and email: a write losing on one lost to a parallel write of the same identity. */
export const identityKeys = [uniqueOn(contacts.workspace_id, contacts.phone), uniqueOn(contacts.workspace_id, contacts.email)];

/**
 * Whether a batch lost to a parallel write of the same phone or email (`identityKeys`): whatever
 * writes a contact (here, or in another module's batch through a contact reference) runs again on
 * it and finds the winner.
 */
export const identityTaken = lostRaceOn(...identityKeys);

/**
 * The upsert as reads plus a continuation, so a caller (deals) can fold the
 * contact's reads and writes into its own two batches. A merge conflict opens
 * its merge request and throws 409; a batch failing on the identity keys
 * (`identityTaken`, the plan's `lostRace`) runs again from the reads.
 */
export function planUpsert(ctx: ServiceContext, input: NormalizedWrite, opts: WriteOptions): UpsertPlan {
  const { db, ws } = ctx;
  const phone = input.phone ?? null;
  const email = input.email ?? null;
  const labels = labelAndBlacklistReads(ctx, input, phone);
  const cap = ws.caps.contacts;
  const capped = cap !== undefined && cap !== null;
  const reads = {
    ...labels.reads,
    phone: !!phone && selectIdentifierHolder(db, ws.id, 'phone', phone),
    email: !!email && selectIdentifierHolder(db, ws.id, 'email', email),
    // Counting is only paid for when a cap applies.
    total: capped && db.select({ n: count() }).from(contacts).where(eq(contacts.workspace_id, ws.id)),
  };
  const plan = planOf(
    reads,
    async (read): Promise<PlannedContactWrite> => {
      const blacklisted = read.blacklist.length > 0;
      const phoneOwner = read.phone[0] ?? null;
      const emailOwner = read.email[0] ?? null;
      if (phone && blacklisted) throw ContactErrors.phoneBlacklisted();
      if (phoneOwner && emailOwner && phoneOwner.id !== emailOwner.id) {
        const { phone: _p, email: _e, ...parked } = input;
        const mergeRequestId = await openMergeRequest(ctx, {
          targetId: phoneOwner.id,
          otherId: emailOwner.id,
          origin: 'create',
          identity: { phone, email },
          parked,
        });
        throw ContactErrors.mergeRequired.onCreate({ merge_request_id: mergeRequestId });
      }
      const diffs = diffsOf(labels.names, read);
      const target = phoneOwner ?? emailOwner;
      if (target) {
        const update = updateStatements(ctx, target, input, diffs, 'add', blacklisted, opts.source);
        return {
          row: update?.row ?? target,
          duplicate: true,
          writes: update?.statements ?? [],
          events: update?.events ?? [],
          mapError: (err) => err,
        };
      }
      if (capped && (read.total[0]?.n ?? 0) >= cap) throw ContactErrors.limitReached({ cap });
      const created = createStatements(ctx, { ...input, ...(opts.createOnly ?? {}) }, diffs, blacklisted, opts.source);
      return {
        ...created,
        duplicate: false,
        writes: created.statements,
        mapError: (err) => (capped && failedOn(err, guardOf(contacts.workspace_id)) ? ContactErrors.limitReached({ cap }) : err),
      };
    },
    identityTaken,
  );
  return { ...plan, createAlong: (also) => createAlongReads(ctx, input, opts, labels.names, also) };
}

/**
 * An update of an existing contact in the operation's batch (`updateStatements`), answered by
 * its re-read. Nothing changed means nothing written and no event; a contact erased between
 * the reads and the batch answers 404 (its writes were guarded on it: nothing was written).
 */
function writeUpdate(
  ctx: ServiceContext,
  batch: WriteBatch,
  change: {
    existing: ContactRow;
    input: NormalizedWrite;
    diffs: Diffs;
    labelMode: LabelMode;
    blacklisted: boolean;
    silent?: boolean;
    source?: string;
  },
): Decided<ContactRow> {
  const { existing } = change;
  const update = updateStatements(ctx, existing, change.input, change.diffs, change.labelMode, change.blacklisted, change.source ?? 'api', {
    silent: change.silent,
  });
  if (!update) return unchanged(existing);
  return batch.add(update).answerIfWritten(
    selectContact(ctx.db, ctx.ws.id, existing.id),
    ([row]) => row,
    () => ContactErrors.idNotFound({ id: existing.id }),
  );
}

/** The statements of an update (null when nothing changes) and the contact as it will be. */
export function updateStatements(
  ctx: ServiceContext,
  existing: ContactRow,
  input: NormalizedWrite,
  diffs: Diffs,
  labelMode: LabelMode,
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
export function patchContact(
  ctx: ServiceContext,
  id: string,
  input: NormalizedWrite,
  opts: { source?: string; labelMode?: LabelMode } = {},
): Promise<ContactRow> {
  const { db, ws } = ctx;
  const labels = labelAndBlacklistReads(ctx, input, input.phone);
  return runOperation(ctx, {
    reads: {
      ...labels.reads,
      existing: selectContact(db, ws.id, id),
      phone: typeof input.phone === 'string' && selectIdentifierHolder(db, ws.id, 'phone', input.phone),
      email: typeof input.email === 'string' && selectIdentifierHolder(db, ws.id, 'email', input.email),
    },
    decide: async (read, batch) => {
      const [existing] = read.existing;
      if (!existing) throw ContactErrors.notFound({ id });
      const blacklisted = read.blacklist.length > 0;
      const phoneChanges = typeof input.phone === 'string' && input.phone !== existing.phone;
      const emailChanges = typeof input.email === 'string' && input.email !== existing.email;
      if (phoneChanges && blacklisted) throw ContactErrors.phoneBlacklisted();
      const holders = [phoneChanges ? read.phone[0] : undefined, emailChanges ? read.email[0] : undefined];
      const other = holders.find((h) => h && h.id !== existing.id);
      if (other) await refuseIdentityMove(ctx, existing, other, input);
      return writeUpdate(ctx, batch, {
        existing,
        input,
        diffs: diffsOf(labels.names, read),
        labelMode: opts.labelMode ?? 'replace',
        blacklisted,
        source: opts.source,
      });
    },
    lostRaceOn: identityKeys,
  });
}

/** A patch moving an identifier onto another contact: the merge request holding the sent fields, and 409. */
async function refuseIdentityMove(ctx: ServiceContext, existing: ContactRow, other: ContactRow, input: NormalizedWrite): Promise<never> {
  const { phone, email, ...parked } = input;
  const mergeRequestId = await openMergeRequest(ctx, {
    targetId: existing.id,
    otherId: other.id,
    origin: 'update',
    identity: { ...(phone !== undefined ? { phone } : {}), ...(email !== undefined ? { email } : {}) },
    parked,
  });
  throw ContactErrors.mergeRequired.onUpdate({ merge_request_id: mergeRequestId });
}

/** Reads and label look-ups for applying parked fields at merge-request resolution. */
export function applyParked(
  ctx: ServiceContext,
  existing: ContactRow,
  input: NormalizedWrite,
  labelMode: 'add' | 'replace',
  opts: { silent: boolean },
): Promise<ContactRow> {
  const labels = labelAndBlacklistReads(ctx, input, existing.phone);
  return runOperation(ctx, {
    reads: labels.reads,
    decide: (read, batch) =>
      writeUpdate(ctx, batch, {
        existing,
        input,
        diffs: diffsOf(labels.names, read),
        labelMode,
        blacklisted: read.blacklist.length > 0,
        silent: opts.silent,
      }),
  });
}

/** The contact's answer as JSON text, written by SQLite as a list page's are (`answeredJson`). */
export async function getContact(ctx: ServiceContext, id: string): Promise<string> {
  const answer = await readContactAnswer(ctx.db, ctx.ws.id, id);
  if (answer === undefined) throw ContactErrors.idNotFound({ id });
  return answer;
}
