import { count, eq } from 'drizzle-orm';
import type { ServiceContext } from '../../../platform/context';
import { guardOf } from '../../../platform/d1/constraints';
import type { Statement } from '../../../platform/d1/db';
import { runOperation, type WriteBatch } from '../../../platform/d1/operation';
import { ApiError } from '../../../platform/errors';
import { SharedErrors } from '../../../platform/shared-errors';
import { formatIssues } from '../../../platform/validation';
import { blacklistLookupMany } from '../../blacklist';
import { ContactErrors } from '../errors';
import { ContactWrite } from '../fields';
import { findLabels, type LabelKind, uniqueNames } from '../labels/links';
import { mergeRequestUpsert } from '../merge';
import type { Diffs, LabelDiff, NormalizedWrite } from '../plan';
import { selectIdentifierHolders, type ContactRow } from '../read';
import { contacts } from '../schema';
import { createStatements } from '../create';
import { identityKeys, normalizeWrite, updateStatements } from '../service';
import { FRAMEWORK_SURFACE } from '../../../platform/error-surfaces';

/** One item's answer: what `POST /v1/contacts` would have answered for it alone. */
export type BulkItemResult =
  | { index: number; status: 201; id: string; duplicate: boolean }
  | { index: number; status: number; error: Record<string, unknown> };

export type BulkOptions = {
  /** Surface recorded on activity rows and events (`api`, `import`). */
  source: string;
  /** No contact events at all (CSV imports). */
  silent?: boolean;
  /**
   * Statements of the caller's to commit with the items' writes, given the items' answers (a merge
   * request's id is not known yet: `merge_request_id` is null there). A failure of one of them fails
   * the whole write batch and is thrown as it is.
   */
  along?: (results: BulkItemResult[]) => Statement[];
};

/** An item checked as the single route checks its body: the normalized write, or the error it answers. */
export type BulkItem = { input: NormalizedWrite } | { error: ApiError };

export const KINDS: LabelKind[] = ['tags', 'groups'];

/** The body of one item validated and normalized exactly as `POST /v1/contacts` does, so its 400s read the same. */
export function checkItem(ctx: ServiceContext, item: unknown): BulkItem {
  const parsed = ContactWrite.safeParse(item);
  if (!parsed.success) return { error: SharedErrors.invalidRequest({ problems: formatIssues(parsed.error.issues as never) }) };
  try {
    return { input: normalizeWrite(ctx, parsed.data) };
  } catch (err) {
    if (err instanceof ApiError) return { error: err };
    throw err;
  }
}

/**
 * The `POST /v1/contacts` upsert for up to a few hundred items at a bounded cost: one read batch
 * (identifier holders, labels, blacklist, the count under a cap) for all items, the items planned in
 * order in memory (an item matching an earlier one upserts the contact that one wrote), and one write
 * batch: two round trips, none for a batch that writes nothing. Merge requests ride in the write batch.
 * A write batch that loses a race (a parallel write took one of its phones or emails, or under a
 * contact cap the count moved) wrote nothing and runs again from new reads.
 */
export function upsertContacts(ctx: ServiceContext, items: BulkItem[], opts: BulkOptions): Promise<BulkItemResult[]> {
  const { db, ws } = ctx;
  const inputs = items.flatMap((item) => ('input' in item ? [item.input] : []));
  const phones = [...new Set(inputs.flatMap((i) => (typeof i.phone === 'string' ? [i.phone] : [])))];
  const emails = [...new Set(inputs.flatMap((i) => (typeof i.email === 'string' ? [i.email] : [])))];
  const labelKeys = Object.fromEntries(
    KINDS.map((kind) => [kind, [...new Set(inputs.flatMap((i) => [...uniqueNames(i[kind] ?? []).keys()]))]]),
  ) as Record<LabelKind, string[]>;
  const capped = ws.caps.contacts !== undefined && ws.caps.contacts !== null;
  return runOperation(ctx, {
    reads: {
      phones: phones.length > 0 && selectIdentifierHolders(db, ws.id, 'phone', phones),
      emails: emails.length > 0 && selectIdentifierHolders(db, ws.id, 'email', emails),
      blacklist: phones.length > 0 && blacklistLookupMany(db, ws.id, phones),
      tags: labelKeys.tags.length > 0 && findLabels(db, 'tags', ws.id, labelKeys.tags),
      groups: labelKeys.groups.length > 0 && findLabels(db, 'groups', ws.id, labelKeys.groups),
      total: capped && inputs.length > 0 && db.select({ n: count() }).from(contacts).where(eq(contacts.workspace_id, ws.id)),
    },
    decide: (read, batch) => {
      const state = new BatchState(read.phones, read.emails, { tags: read.tags, groups: read.groups });
      const found = { blacklisted: new Set(read.blacklist.map((r) => r.phone)), total: read.total[0]?.n ?? 0 };
      const planned = items.map((item, index) => planItem(ctx, batch, { item, index, state, found, opts }));
      const answer = (p: Planned, mergeRequestId: (p: MergeAt) => string | null) =>
        'mergeRequest' in p ? errorResult(p.index, ContactErrors.mergeRequired.onCreate({ merge_request_id: mergeRequestId(p) as string })) : p;
      batch.write(...(opts.along?.(planned.map((p) => answer(p, () => null))) ?? []));
      return batch.answerAfter(() => planned.map((p) => answer(p, (merge) => merge.mergeRequest()[0].id)));
    },
    lostRaceOn: [...identityKeys, guardOf(contacts.workspace_id)],
  });
}

/** An item answered by a merge request the write batch opens: its id once the batch committed. */
type MergeAt = { index: number; mergeRequest: () => { id: string }[] };
type Planned = BulkItemResult | MergeAt;

/**
 * One item planned onto the write batch, as `POST /v1/contacts` decides it alone but over the
 * contacts the batch has so far (`state`): an item's refusal is its answer, not the batch's.
 */
function planItem(
  ctx: ServiceContext,
  batch: WriteBatch,
  at: { item: BulkItem; index: number; state: BatchState; found: { blacklisted: Set<string>; total: number }; opts: BulkOptions },
): Planned {
  const { item, index, state, found, opts } = at;
  if ('error' in item) return errorResult(index, item.error);
  const input = item.input;
  try {
    const phone = input.phone ?? null;
    const email = input.email ?? null;
    if (phone && found.blacklisted.has(phone)) throw ContactErrors.phoneBlacklisted();
    const phoneOwner = phone ? state.holder('phone', phone) : null;
    const emailOwner = email ? state.holder('email', email) : null;
    if (phoneOwner && emailOwner && phoneOwner.id !== emailOwner.id) {
      const { phone: _p, email: _e, ...parked } = input;
      const open = { targetId: phoneOwner.id, otherId: emailOwner.id, origin: 'create', identity: { phone, email }, parked } as const;
      return { index, mergeRequest: batch.returning(mergeRequestUpsert(ctx, open)) };
    }
    const diffs = state.diffs(input);
    const target = phoneOwner ?? emailOwner;
    if (target) {
      const update = updateStatements(ctx, target, input, diffs, 'add', false, opts.source, { silent: opts.silent });
      if (update) {
        batch.add(update);
        state.wrote(update.row, input, diffs);
      }
      return { index, status: 201, id: target.id, duplicate: true };
    }
    const cap = ctx.ws.caps.contacts;
    if (cap !== undefined && cap !== null && found.total >= cap) throw ContactErrors.limitReached({ cap });
    const created = createStatements(ctx, input, diffs, false, opts.source, undefined, opts.silent);
    batch.add(created);
    state.wrote(created.row, input, diffs);
    found.total++;
    return { index, status: 201, id: created.row.id, duplicate: false };
  } catch (err) {
    if (err instanceof ApiError) return errorResult(index, err);
    throw err;
  }
}

const errorResult = (index: number, err: ApiError): BulkItemResult => ({ index, status: err.status, error: err.bodyOn(FRAMEWORK_SURFACE) });

/**
 * The contacts as the batch has them so far: the holders the reads found, then what each planned
 * item wrote (an identifier it gave now names its contact; the one it moved off still does, as the
 * history would), and the labels the batch knows, those it creates included.
 */
class BatchState {
  private readonly rows = new Map<string, ContactRow>();
  private readonly holders = { phone: new Map<string, string>(), email: new Map<string, string>() };
  private readonly labels: Record<LabelKind, Map<string, string>>;

  constructor(
    phoneHolders: (ContactRow & { held_value: string })[],
    emailHolders: (ContactRow & { held_value: string })[],
    labels: Record<LabelKind, { id: string; name_key: string }[]>,
  ) {
    for (const [kind, found] of [
      ['phone', phoneHolders],
      ['email', emailHolders],
    ] as const) {
      for (const { held_value, ...row } of found) {
        if (!this.rows.has(row.id)) this.rows.set(row.id, row as ContactRow);
        this.holders[kind].set(held_value, row.id);
      }
    }
    this.labels = { tags: new Map(labels.tags.map((l) => [l.name_key, l.id])), groups: new Map(labels.groups.map((l) => [l.name_key, l.id])) };
  }

  holder(kind: 'phone' | 'email', value: string): ContactRow | null {
    const id = this.holders[kind].get(value);
    return id ? this.rows.get(id)! : null;
  }

  diffs(input: NormalizedWrite): Diffs {
    const diff = (kind: LabelKind): LabelDiff => {
      const names = uniqueNames(input[kind] ?? []);
      const known = this.labels[kind];
      const keys = [...names.keys()];
      return { names, missingKeys: keys.filter((k) => !known.has(k)), resolvedIds: keys.flatMap((k) => (known.has(k) ? [known.get(k)!] : [])) };
    };
    return { tags: diff('tags'), groups: diff('groups') };
  }

  /**
   * Records a planned write: the contact as it will be, with its labels (ids of labels the batch
   * creates stand in until they exist: the links join by name, only later items' change checks read them).
   */
  wrote(row: ContactRow, input: NormalizedWrite, diffs: Diffs) {
    const next = { ...row } as ContactRow;
    if (typeof next.custom_fields !== 'string') next.custom_fields = JSON.stringify(next.custom_fields ?? {});
    if (input.phone !== undefined) next.phone_blacklisted = 0;
    for (const kind of KINDS) {
      const column = kind === 'tags' ? 'tag_ids' : 'group_ids';
      const current: string[] = JSON.parse((row[column] as string | undefined) ?? '[]');
      for (const key of diffs[kind].missingKeys) this.labels[kind].set(key, `new:${key}`);
      const named = [...diffs[kind].names.keys()].map((key) => this.labels[kind].get(key)!);
      next[column] = JSON.stringify([...new Set([...current, ...named])]);
    }
    this.rows.set(next.id, next);
    if (typeof next.phone === 'string') this.holders.phone.set(next.phone, next.id);
    if (typeof next.email === 'string') this.holders.email.set(next.email, next.id);
  }
}
