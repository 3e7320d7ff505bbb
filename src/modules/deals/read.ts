import { and, eq, getTableColumns, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { fromCents } from '../../platform/money';
import { prepared } from '../../platform/d1/prepared';
import { contactIdentityColumns, contactIdentityJoin, serializeContactIdentity, type ContactIdentity } from '../contacts';
import { deals, type DealRow } from './schema';

/**
 * A deal's columns as answers show them: `position` counts from the top of the
 * stage column (the stored slot minus the column's first, one index probe; see
 * ./placement.ts).
 */
export const dealColumns = {
  ...getTableColumns(deals),
  // Spelled out: a single-table select leaves its columns unqualified, which the sub-select would read as its own.
  position:
    sql<number>`"deals"."position" - (SELECT min(top.position) FROM deals top WHERE top.workspace_id = "deals"."workspace_id" AND top.stage_id = "deals"."stage_id")`
      .mapWith(Number)
      .as('column_position'),
};

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

/** Deals with their contact's name, phone and email: one query, the join scoped to the deal's workspace too; `where` names the workspace. */
export function selectDealsWithContact(db: Db, where: SQL | undefined) {
  return db
    .select({ deal: dealColumns, ...contactIdentityColumns })
    .from(deals)
    .leftJoin(...contactIdentityJoin(deals.contactId, deals.workspaceId))
    .where(where);
}

const dealRead = prepared((db) =>
  db
    .select(dealColumns)
    .from(deals)
    .where(and(eq(deals.workspaceId, sql.placeholder('ws')), eq(deals.id, sql.placeholder('id'))))
    .limit(1),
);

/** One deal of the workspace, for a batch (its result: the rows). */
export const selectDeal = (db: Db, workspaceId: string, id: string) => dealRead.in(db, { ws: workspaceId, id });

/** Whether the workspace has the deal and it belongs to the contact, for a write guarded on it (see `RowGuard`). */
export const dealOfContact = (ws: SQLWrapper, id: SQLWrapper, contactId: SQLWrapper) =>
  sql`EXISTS (SELECT 1 FROM ${deals} WHERE ${deals.workspaceId} = ${ws} AND ${deals.id} = ${id} AND ${deals.contactId} = ${contactId})`;

const dealWithContactRead = prepared((db) =>
  db
    .select({ deal: dealColumns, ...contactIdentityColumns })
    .from(deals)
    .leftJoin(...contactIdentityJoin(deals.contactId, deals.workspaceId))
    .where(and(eq(deals.workspaceId, sql.placeholder('ws')), eq(deals.id, sql.placeholder('id'))))
    .limit(1),
);

/** One deal with its contact's identity, for a batch (its result: the rows). */
export const selectDealWithContact = (db: Db, workspaceId: string, id: string) => dealWithContactRead.in(db, { ws: workspaceId, id });

/** The same, read on its own. */
export const readDealWithContact = async (db: Db, workspaceId: string, id: string) => (await dealWithContactRead.all(db, { ws: workspaceId, id }))[0];
