import { count, eq } from 'drizzle-orm';
import type { ServiceContext } from '../../../platform/context';
import { failedOn, guardOf } from '../../../platform/d1/constraints';
import { optionalReads, retryOnConflict, runBatch, type Statement } from '../../../platform/d1/db';
import { ApiError } from '../../../platform/errors';
import type { OutboxEvent } from '../../../platform/events';
import { SharedErrors } from '../../../platform/shared-errors';
import { formatIssues } from '../../../platform/validation';
import { blacklistLookupMany } from '../../blacklist';
import { ContactErrors } from '../errors';
import { ContactWrite } from '../fields';
import { findLabels, type LabelKind, uniqueNames } from '../labels/links';
import { mergeRequestUpsert } from '../merge';
import type { LabelDiff, NormalizedWrite } from '../plan';
import { selectIdentifierHolders, type ContactRow } from '../read';
import { contacts } from '../schema';
import { createStatements, type Diffs, identityTaken, normalizeWrite, updateStatements } from '../service';

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
 * A lost race of the write batch: a parallel write took one of its phones or emails, or under a
 * contact cap the count moved. Either way the batch wrote nothing and is planned again from new reads.
 */
const batchLostRace = (err: unknown) => identityTaken(err) || failedOn(err, guardOf(contacts.workspace_id));

/**
 * The `POST /v1/contacts` upsert for up to a few hundred items at a bounded cost: one read batch
 * (identifier holders, labels, blacklist, the count under a cap) for all items, the items planned in
 * order in memory (an item matching an earlier one upserts the contact that one wrote), and one write
 * batch: two round trips, none for a batch that writes nothing. Merge requests ride in the write batch.
 */
export async function upsertContacts(ctx: ServiceContext, items: BulkItem[], opts: BulkOptions): Promise<BulkItemResult[]> {
  return retryOnConflict(() => upsertOnce(ctx, items, opts), batchLostRace);
}

type Planned = BulkItemResult | { index: number; mergeAt: number };

async function upsertOnce(ctx: ServiceContext, items: BulkItem[], opts: BulkOptions): Promise<BulkItemResult[]> {
  const { db, ws } = ctx;
  const inputs = items.flatMap((item) => ('input' in item ? [item.input] : []));
  const phones = [...new Set(inputs.flatMap((i) => (typeof i.phone === 'string' ? [i.phone] : [])))];
  const emails = [...new Set(inputs.flatMap((i) => (typeof i.email === 'string' ? [i.email] : [])))];
  const labelKeys = Object.fromEntries(
    KINDS.map((kind) => [kind, [...new Set(inputs.flatMap((i) => [...uniqueNames(i[kind] ?? []).keys()]))]]),
  ) as Record<LabelKind, string[]>;
  const cap = ws.caps.contacts;
  const capped = cap !== undefined && cap !== null;
  const reads = optionalReads();
  const slots = {
    phones: reads.add(phones.length > 0 && selectIdentifierHolders(db, ws.id, 'phone', phones)),
    emails: reads.add(emails.length > 0 && selectIdentifierHolders(db, ws.id, 'email', emails)),
    blacklist: reads.add(phones.length > 0 && blacklistLookupMany(db, ws.id, phones)),
    tags: reads.add(labelKeys.tags.length > 0 && findLabels(db, 'tags', ws.id, labelKeys.tags)),
    groups: reads.add(labelKeys.groups.length > 0 && findLabels(db, 'groups', ws.id, labelKeys.groups)),
    total: reads.add(capped && inputs.length > 0 && db.select({ n: count() }).from(contacts).where(eq(contacts.workspace_id, ws.id))),
  };
  const results = reads.statements.length ? await runBatch(db, reads.statements) : [];
  const state = new BatchState(
    reads.get<(ContactRow & { held_value: string })[]>(results, slots.phones, []),
    reads.get<(ContactRow & { held_value: string })[]>(results, slots.emails, []),
    {
      tags: reads.get<{ id: string; name_key: string }[]>(results, slots.tags, []),
      groups: reads.get<{ id: string; name_key: string }[]>(results, slots.groups, []),
    },
  );
  const blacklisted = new Set(reads.get<{ phone: string }[]>(results, slots.blacklist, []).map((r) => r.phone));
  let total = reads.get(results, slots.total, [{ n: 0 }])[0].n;

  const writes: Statement[] = [];
  const events: OutboxEvent[] = [];
  const planned: Planned[] = items.map((item, index) => {
    if ('error' in item) return errorResult(index, item.error);
    const input = item.input;
    try {
      const phone = input.phone ?? null;
      const email = input.email ?? null;
      if (phone && blacklisted.has(phone)) throw ContactErrors.phoneBlacklisted();
      const phoneOwner = phone ? state.holder('phone', phone) : null;
      const emailOwner = email ? state.holder('email', email) : null;
      if (phoneOwner && emailOwner && phoneOwner.id !== emailOwner.id) {
        const { phone: _p, email: _e, ...parked } = input;
        writes.push(
          mergeRequestUpsert(ctx, { targetId: phoneOwner.id, otherId: emailOwner.id, origin: 'create', identity: { phone, email }, parked }),
        );
        return { index, mergeAt: writes.length - 1 };
      }
      const diffs = state.diffs(input);
      const target = phoneOwner ?? emailOwner;
      if (target) {
        const update = updateStatements(ctx, target, input, diffs, 'add', false, opts.source, { silent: opts.silent });
        if (update) {
          writes.push(...update.statements);
          events.push(...update.events);
          state.wrote(update.row, input, diffs);
        }
        return { index, status: 201, id: target.id, duplicate: true };
      }
      if (capped && total >= cap) throw ContactErrors.limitReached({ cap });
      const created = createStatements(ctx, input, diffs, false, opts.source, undefined, opts.silent);
      writes.push(...created.statements);
      events.push(...created.events);
      state.wrote(created.row, input, diffs);
      total++;
      return { index, status: 201, id: created.row.id, duplicate: false };
    } catch (err) {
      if (err instanceof ApiError) return errorResult(index, err);
      throw err;
    }
  });
  const answer = (p: Planned, mergeRequestId: (at: number) => string | null) =>
    'mergeAt' in p ? errorResult(p.index, ContactErrors.mergeRequired({ merge_request_id: mergeRequestId(p.mergeAt) as string })) : p;
  writes.push(...(opts.along?.(planned.map((p) => answer(p, () => null))) ?? []));
  const out = writes.length ? await runBatch(db, writes) : [];
  ctx.events.committedAfter(events);
  return planned.map((p) => answer(p, (at) => (out[at] as { id: string }[])[0].id));
}

const errorResult = (index: number, err: ApiError): BulkItemResult => ({ index, status: err.status, error: err.body });

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
