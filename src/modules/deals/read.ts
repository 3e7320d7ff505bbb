import { and, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../platform/db';
import { fromCents } from '../../platform/money';
import { contacts } from '../contacts/schema';
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

export type DealWithContactRow = { deal: DealRow; contactName: string | null; contactPhone: string | null; contactEmail: string | null };

export const serializeDealWithContact = (r: DealWithContactRow) => ({
  ...serializeDeal(r.deal),
  contact_name: r.contactName,
  contact_phone: r.contactPhone,
  contact_email: r.contactEmail,
});

/** Deals with their contact's name, phone and email: one query, the join scoped to the workspace too. */
export function selectDealsWithContact(db: Db, workspaceId: string, where?: SQL) {
  return db
    .select({ deal: deals, contactName: contacts.name, contactPhone: contacts.phone, contactEmail: contacts.email })
    .from(deals)
    .leftJoin(contacts, and(eq(contacts.id, deals.contactId), eq(contacts.workspace_id, deals.workspaceId)))
    .where(and(eq(deals.workspaceId, workspaceId), where));
}

export const selectDeal = (db: Db, workspaceId: string, id: string) =>
  db.select().from(deals).where(and(eq(deals.workspaceId, workspaceId), eq(deals.id, id))).limit(1);
