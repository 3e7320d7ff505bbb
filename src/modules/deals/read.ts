import { and, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../platform/db';
import { fromCents } from '../../platform/money';
import { contactIdentityColumns, contactIdentityJoin, serializeContactIdentity, type ContactIdentity } from '../contacts/identity-join';
import { deals, type DealRow } from './schema';

export function serializeDeal(d: DealRow) {
  return {
    id: d.id,
    workspace_id: d.workspaceId,
    pipeline_id: d.pipelineId,
    stage_id: d.stageId,
    contact_id: d.contactId,
    product_id: d.productId,
    owner_user_id: d.ownerUserId,
    title: d.title,
    amount: fromCents(d.amountCents),
    currency: d.currency,
    status: d.status,
    lost_reason: d.lostReason,
    expected_close_at: d.expectedCloseAt,
    closed_at: d.closedAt,
    stage_entered_at: d.stageEnteredAt,
    position: d.position,
    note: d.note,
    external_reference: d.externalReference,
    source: d.source,
    created_by: d.createdBy,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

export type DealWithContactRow = { deal: DealRow } & ContactIdentity;

export const serializeDealWithContact = (r: DealWithContactRow) => ({
  ...serializeDeal(r.deal),
  ...serializeContactIdentity(r),
});

/** Deals with their contact's name, phone and email: one query, the join scoped to the workspace too. */
export function selectDealsWithContact(db: Db, workspaceId: string, where?: SQL) {
  return db
    .select({ deal: deals, ...contactIdentityColumns })
    .from(deals)
    .leftJoin(...contactIdentityJoin(deals.contactId, deals.workspaceId))
    .where(and(eq(deals.workspaceId, workspaceId), where));
}

export const selectDeal = (db: Db, workspaceId: string, id: string) =>
  db.select().from(deals).where(and(eq(deals.workspaceId, workspaceId), eq(deals.id, id))).limit(1);
