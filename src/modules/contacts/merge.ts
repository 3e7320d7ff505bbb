import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guarded, nowIso, type Statement } from '../../platform/d1/db';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import { writeThenRead } from '../../platform/d1/write-then-read';
import { CUSTOM_FIELDS_BOUNDS, jsonBoundsProblem } from '../../platform/json-bounds';
import { uuidv7 } from '../../platform/ids';
import { contactExtensions } from './extensions';
import { SCALAR_NAMES } from './fields';
import { recordIdentifiers } from './identity';
import type { NormalizedWrite } from './plan';
import { ownPersonalData } from './personal-data';
import { selectContact, serializeContact, type ContactRow } from './read';
import { contactActivities, contacts, mergeRequests } from './schema';
import { ContactErrors } from './errors';

type OpenInput = {
  targetId: string;
  otherId: string;
  origin: 'create' | 'update';
  identity: { phone?: string | null; email?: string | null };
  parked: Omit<NormalizedWrite, 'phone' | 'email'>;
};

/**
 * Opens the merge request for a contact pair, or refreshes the open one (one
 * open request per pair, enforced by a partial unique index): the latest
 * conflicting write's fields are the ones held.
 */
export async function openMergeRequest(ctx: ServiceContext, input: OpenInput): Promise<string> {
  const [row] = await mergeRequestUpsert(ctx, input);
  return row.id;
}

/** `openMergeRequest` as a statement for the caller's batch; its result is `[{id}]`, the request's id. */
export function mergeRequestUpsert(ctx: ServiceContext, input: OpenInput) {
  const now = nowIso();
  const pairKey = [input.targetId, input.otherId].sort().join(':');
  return ctx.db
    .insert(mergeRequests)
    .values({
      id: uuidv7(),
      workspace_id: ctx.ws.id,
      target_contact_id: input.targetId,
      other_contact_id: input.otherId,
      pair_key: pairKey,
      status: 'open',
      origin: input.origin,
      identity: input.identity,
      parked_fields: input.parked as Record<string, unknown>,
      created_at: now,
      updated_at: now,
    })
    .onConflictDoUpdate({
      target: [mergeRequests.workspace_id, mergeRequests.pair_key],
      targetWhere: sql`status = 'open'`,
      set: { identity: sql`excluded.identity`, parked_fields: sql`excluded.parked_fields`, origin: sql`excluded.origin`, updated_at: now },
    })
    .returning({ id: mergeRequests.id });
}

/** A merge request by id alone (operator route: the id names no workspace), or null. */
export async function findMergeRequest(ctx: Pick<ServiceContext, 'db'>, id: string) {
  const [row] = await ctx.db.select().from(mergeRequests).where(eq(mergeRequests.id, id)).limit(1);
  return row ?? null;
}

type MergeRequest = typeof mergeRequests.$inferSelect;

/** Claims an open request for resolution; a request resolved concurrently answers 409. */
async function claim(ctx: ServiceContext, mr: MergeRequest, status: 'merged' | 'dismissed') {
  const now = nowIso();
  const res = await ctx.db
    .update(mergeRequests)
    .set({ status, resolved_at: now, updated_at: now })
    .where(and(eq(mergeRequests.id, mr.id), eq(mergeRequests.status, 'open')))
    .returning({ id: mergeRequests.id });
  if (res.length === 0) throw ContactErrors.mergeResolved();
}

/**
 * `merge`: the target absorbs the other contact silently (no contact events):
 * empty fields are filled from the other, labels, attendances, notes, history
 * and identifiers move over, the requested identifiers land on the target, and
 * the held fields are applied. `dismiss`: only the held fields are applied to
 * the target, as an ordinary update.
 */
export async function resolveMergeRequest(
  ctx: ServiceContext,
  mr: MergeRequest,
  action: 'merge' | 'dismiss',
  applyHeld: (existing: ContactRow, input: NormalizedWrite, mode: 'add' | 'replace', opts: { silent: boolean }) => Promise<ContactRow>,
) {
  if (mr.status !== 'open') throw ContactErrors.mergeResolved();
  const { db, ws } = ctx;
  const [targets, others] = await db.batch([selectContact(db, ws.id, mr.target_contact_id), selectContact(db, ws.id, mr.other_contact_id)]);
  let target = targets[0];
  const other = others[0];
  if (!target) throw ContactErrors.mergeTargetGone();
  const labelMode = mr.origin === 'create' ? 'add' : 'replace';

  if (action === 'merge' && other) {
    const now = nowIso();
    const fill: Record<string, unknown> = {};
    for (const f of SCALAR_NAMES) if (target[f] === null && other[f] !== null) fill[f] = other[f];
    const phone = mr.identity.phone !== undefined ? mr.identity.phone : (target.phone ?? other.phone);
    const email = mr.identity.email !== undefined ? mr.identity.email : (target.email ?? other.email);
    const customFields = { ...JSON.parse(other.custom_fields), ...JSON.parse(target.custom_fields) };
    // Each side is within bounds; together they may not be, and what is stored must read back.
    const problem = jsonBoundsProblem(customFields, CUSTOM_FIELDS_BOUNDS);
    if (problem) throw ContactErrors.mergedFieldsTooLarge({ problem });
    // The claim is the batch's first statement: a request resolved meanwhile fails the whole merge.
    const statements: Statement[] = [
      db
        .update(mergeRequests)
        .set({ status: guarded(sql`${mergeRequests.status} = 'open'`, sql`'merged'`), resolved_at: now, updated_at: now })
        .where(and(eq(mergeRequests.workspace_id, ws.id), eq(mergeRequests.id, mr.id))),
      db.delete(contacts).where(and(eq(contacts.workspace_id, ws.id), eq(contacts.id, other.id))),
    ];
    // Every module moves the absorbed contact's rows to the target (src/platform/personal-data.ts).
    for (const records of [ownPersonalData, ...contactExtensions().records])
      statements.push(...(records.rekey?.(db, ws.id, other.id, target.id) ?? []));
    statements.push(
      db
        .update(contacts)
        .set({ ...(fill as Partial<typeof contacts.$inferInsert>), phone, email, custom_fields: customFields, updated_at: now })
        .where(and(eq(contacts.workspace_id, ws.id), eq(contacts.id, target.id))),
    );
    statements.push(...recordIdentifiers(db, ws.id, target.id, { phone, email }, now));
    statements.push(
      db.insert(contactActivities).values({
        id: uuidv7(),
        workspace_id: ws.id,
        contact_id: target.id,
        type: 'merged',
        source: 'api',
        data: { absorbed_contact_id: other.id, merge_request_id: mr.id },
        created_at: now,
      }),
    );
    const { merged } = await writeThenRead(db, statements, { merged: selectContact(db, ws.id, target.id) }).catch((err) => {
      if (failedOn(err, guardOf(mergeRequests.status))) throw ContactErrors.mergeResolved();
      throw err;
    });
    target = merged[0];
  } else {
    await claim(ctx, mr, action === 'merge' ? 'merged' : 'dismissed');
  }
  const row = await applyHeld(target, mr.parked_fields as NormalizedWrite, labelMode, { silent: action === 'merge' });
  return {
    id: mr.id,
    workspace_id: mr.workspace_id,
    status: action === 'merge' ? 'merged' : 'dismissed',
    target_contact_id: mr.target_contact_id,
    other_contact_id: mr.other_contact_id,
    contact: serializeContact(row),
  };
}
