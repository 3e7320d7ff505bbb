import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { prepared } from '../../platform/d1/prepared';
import { paymentEntries, payments } from './schema';

/**
 * Batchable reads of the document pointers a contact's payments hold: payments
 * whose `metadata.document` is an object (with the header's purchase date,
 * total and currency) and refund entries with a `credit_document` (with the
 * entry's creation time, amount and currency).
 */
const [documentWs, documentContact] = [sql.placeholder('ws'), sql.placeholder('contact')];
const paymentPointers = prepared((db) =>
  db
    .select({
      id: payments.id,
      date: payments.purchaseDate,
      cents: payments.totalCents,
      currency: payments.currency,
      document: sql<string>`json_extract(${payments.metadata}, '$.document')`.as('document'),
    })
    .from(payments)
    .where(
      and(
        eq(payments.workspaceId, documentWs),
        eq(payments.contactId, documentContact),
        sql`json_type(${payments.metadata}, '$.document') = 'object'`,
      ),
    ),
);
const entryPointers = prepared((db) =>
  db
    .select({
      id: paymentEntries.id,
      paymentId: paymentEntries.paymentId,
      date: paymentEntries.createdAt,
      cents: paymentEntries.amountCents,
      currency: paymentEntries.currency,
      document: paymentEntries.creditDocument,
    })
    .from(paymentEntries)
    .where(
      and(
        eq(paymentEntries.workspaceId, documentWs),
        eq(paymentEntries.contactId, documentContact),
        sql`${paymentEntries.creditDocument} IS NOT NULL`,
      ),
    ),
);

/** The document pointers of a contact's payments and refund entries, for the documents listing's read batch (built once: `prepared`). */
export const contactDocumentPointerReads = (ctx: ServiceContext, contactId: string) => [
  paymentPointers.in(ctx.db, { ws: ctx.ws.id, contact: contactId }),
  entryPointers.in(ctx.db, { ws: ctx.ws.id, contact: contactId }),
];

export type PaymentDocumentRow = { id: string; date: string; cents: number; currency: string; document: string };
export type EntryDocumentRow = { id: string; paymentId: string; date: string; cents: number; currency: string; document: unknown };
