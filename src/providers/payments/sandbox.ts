import type { DocumentPointer, DocumentQuery, LiveDocument, LiveListing, PaymentProvider } from './types';
import { WebhookRejected } from './types';

/** The receipt the sandbox issues when a link is paid: deterministic, pointing at the link's own page. */
export const sandboxReceipt = (request: { id: string; payUrl: string }): DocumentPointer => ({
  provider: 'sandbox',
  id: `sbx_rcpt_${request.id}`,
  number: `SBX-${request.id.replace(/-/g, '').slice(-8).toUpperCase()}`,
  type: 'receipt',
  url: request.payUrl,
});

/**
 * No network. The checkout is this service's own hosted page (its Pay button
 * and the operator complete route confirm the payment), nothing is sent
 * anywhere, and the live document listing is a pure function of the query:
 * the receipt of every paid sandbox link (so it merges with the stored
 * pointer) plus one account statement of a type outside the document kinds,
 * without a date, for a contact with at least one paid link.
 */
export const sandboxProvider: PaymentProvider = {
  name: 'sandbox',
  async createCheckout() {
    return { redirectUrl: null, sessionId: null };
  },
  async expireCheckout() {},
  async verifyWebhook() {
    throw new WebhookRejected('The sandbox provider sends no webhooks');
  },
  async listDocuments(query: DocumentQuery): Promise<LiveListing> {
    const paid = query.paidRequests.filter((r) => r.document?.provider === 'sandbox');
    const documents: LiveDocument[] = paid.map((r) => ({
      ...r.document!,
      date: r.paidAt,
      amount: r.amountCents / 100,
      currency: r.currency,
      isCredit: false,
    }));
    if (paid.length) {
      documents.push({
        provider: 'sandbox',
        id: `sbx_stmt_${query.contactId}`,
        number: `STMT-${query.contactId.replace(/-/g, '').slice(-6).toUpperCase()}`,
        type: 'account_statement',
        url: null,
        date: null,
        amount: null,
        currency: null,
        isCredit: false,
      });
    }
    return { documents, complete: true };
  },
};
