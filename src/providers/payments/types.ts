/**
 * The payment provider layer: one interface, chosen by `PAYMENT_PROVIDER`
 * (`sandbox` default, `stripe`). Every provider's "paid" answer becomes a
 * `PaymentConfirmation`, which the payment-request service applies the same
 * way whoever reported it (the sandbox page, the operator route, a verified
 * provider webhook).
 */
export const PAYMENT_PROVIDERS = ['sandbox', 'stripe'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

/** A stored or provider document pointer: `{provider, id, number, type, url}`. */
export type DocumentPointer = { provider: string; id: string; number: string | null; type: string | null; url: string | null };

/** What a checkout is created for. */
export type CheckoutRequest = {
  id: string;
  workspaceId: string;
  contactId: string;
  amountCents: number;
  currency: string;
  title: string | null;
  expiresAt: string;
  testMode: boolean;
  /** Where the provider sends the payer back: the request's own pay link. */
  returnUrl: string;
};

/** A hosted checkout: where to send the payer, and the provider's session id (null when the page is this service's own). */
export type Checkout = { redirectUrl: string | null; sessionId: string | null };

/** A verified payment, as a provider reported it. */
export type PaymentConfirmation = {
  workspaceId: string;
  paymentRequestId: string;
  provider: PaymentProviderName;
  sessionId: string | null;
  paymentRef: string | null;
  document: DocumentPointer | null;
};

/** A provider's own document about a contact (live listing). */
export type LiveDocument = DocumentPointer & { date: string | null; amount: number | null; currency: string | null; isCredit: boolean };

export type LiveListing = { documents: LiveDocument[]; complete: boolean };

/** What the live listing gets: the contact and what the service knows of its payments with this provider. */
export type DocumentQuery = {
  contactId: string;
  paidRequests: { id: string; document: DocumentPointer | null; paidAt: string | null; amountCents: number; currency: string }[];
};

/** A webhook the provider route rejects: 400 and nothing changes. */
export class WebhookRejected extends Error {}

/** A provider answer that is not a success (mapped to a clear 502 by callers, or to `provider_error`). */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

export interface PaymentProvider {
  readonly name: PaymentProviderName;
  /** Starts a checkout when the payer opens the link (sandbox: none, the page is ours). */
  createCheckout(request: CheckoutRequest): Promise<Checkout>;
  /** Ends a checkout so it can no longer be paid (cancel, expiry); best effort. */
  expireCheckout(sessionId: string): Promise<void>;
  /** Verifies a provider webhook; a confirmation, null for events that confirm nothing, or `WebhookRejected`. */
  verifyWebhook(rawBody: string, headers: Headers): Promise<PaymentConfirmation | null>;
  /** The contact's documents at the provider; null when this provider has no listing. */
  listDocuments(query: DocumentQuery, signal: AbortSignal): Promise<LiveListing | null>;
}
