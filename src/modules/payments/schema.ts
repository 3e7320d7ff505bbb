import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const PAYMENT_TYPES = ['one_time', 'recurring', 'installments'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];
export const ARRANGEMENT_STATUSES = ['active', 'completed', 'cancelled'] as const;
export type ArrangementStatus = (typeof ARRANGEMENT_STATUSES)[number];
export const ENTRY_STATUSES = ['pending', 'completed', 'failed', 'refunded'] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];
export const ENTRY_KINDS = ['charge', 'refund'] as const;
export const PAYMENT_METHODS = ['cash', 'card', 'bank_transfer', 'other'] as const;
export const RECURRING_INTERVALS = ['weekly', 'monthly', 'quarterly', 'yearly'] as const;
export type RecurringInterval = (typeof RECURRING_INTERVALS)[number];
export const VAT_MODES = ['inclusive', 'exclusive'] as const;
export type VatMode = (typeof VAT_MODES)[number];

export type CreditDocument = { provider: string; id: string; number: string | null; type: string | null; url: string | null };

/** A payment header: one-time charge, recurring plan or installment deal of a contact. */
export const payments = sqliteTable(
  'payments',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    contactId: text('contact_id').notNull(),
    productId: text('product_id'),
    type: text('type', { enum: PAYMENT_TYPES }).notNull(),
    title: text('title'),
    note: text('note'),
    currency: text('currency').notNull(),
    /** One-time: the charge; recurring: per cycle; installments: the whole deal. */
    totalCents: integer('total_cents').notNull(),
    arrangementStatus: text('arrangement_status', { enum: ARRANGEMENT_STATUSES }).notNull(),
    method: text('method', { enum: PAYMENT_METHODS }),
    purchaseDate: text('purchase_date').notNull(),
    recurringInterval: text('recurring_interval', { enum: RECURRING_INTERVALS }),
    recurringNextDueAt: text('recurring_next_due_at'),
    recurringAutoGenerate: integer('recurring_auto_generate', { mode: 'boolean' }),
    recurringCancelledAt: text('recurring_cancelled_at'),
    recurringEndAt: text('recurring_end_at'),
    recurringMaxOccurrences: integer('recurring_max_occurrences'),
    /** Cycles recorded so far (recurring plans); the next cycle's number is this plus one. */
    recurringCycles: integer('recurring_cycles').notNull().default(0),
    recurringPaymentMethodId: text('recurring_payment_method_id'),
    recurringLastAttemptAt: text('recurring_last_attempt_at'),
    recurringFailureCount: integer('recurring_failure_count').notNull().default(0),
    recurringPausedAt: text('recurring_paused_at'),
    recurringNextRetryAt: text('recurring_next_retry_at'),
    recurringDunningStartedAt: text('recurring_dunning_started_at'),
    vatMode: text('vat_mode', { enum: VAT_MODES }),
    vatRate: real('vat_rate'),
    installmentCount: integer('installment_count'),
    externalReference: text('external_reference'),
    source: text('source').notNull(),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdBy: text('created_by'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('payments_workspace_external_reference').on(t.workspaceId, t.externalReference),
    index('payments_workspace_purchase_date').on(t.workspaceId, t.purchaseDate),
    index('payments_workspace_contact').on(t.workspaceId, t.contactId),
    index('payments_recurring_due').on(t.recurringAutoGenerate, t.arrangementStatus, t.recurringNextDueAt),
  ],
);

export type PaymentRow = typeof payments.$inferSelect;

/** The ledger lines of a payment: charges (cycles, installments) and the refunds that reverse them. */
export const paymentEntries = sqliteTable(
  'payment_entries',
  {
    id: text('id').primaryKey(),
    paymentId: text('payment_id').notNull(),
    workspaceId: text('workspace_id').notNull(),
    contactId: text('contact_id').notNull(),
    sequence: integer('sequence').notNull(),
    /** The recurring cycle a charge records (null otherwise); unique per plan so a cycle is never recorded twice. */
    cycle: integer('cycle'),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: ENTRY_STATUSES }).notNull(),
    dueDate: text('due_date'),
    paidAt: text('paid_at'),
    recognizedCents: integer('recognized_cents'),
    recognizedAt: text('recognized_at'),
    /** Sum of the refunds recorded against this charge (positive cents); never above `recognized_cents`. */
    refundedCents: integer('refunded_cents').notNull().default(0),
    kind: text('kind', { enum: ENTRY_KINDS }).notNull(),
    refundsEntryId: text('refunds_entry_id'),
    note: text('note'),
    providerRefundRef: text('provider_refund_ref'),
    refundIdempotencyKey: text('refund_idempotency_key'),
    creditDocument: text('credit_document', { mode: 'json' }).$type<CreditDocument>(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('payment_entries_payment_sequence').on(t.paymentId, t.sequence),
    uniqueIndex('payment_entries_payment_cycle').on(t.paymentId, t.cycle),
    index('payment_entries_workspace_contact').on(t.workspaceId, t.contactId),
  ],
);

export type PaymentEntryRow = typeof paymentEntries.$inferSelect;
