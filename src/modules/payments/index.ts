export { MAX_AMOUNT, type PaymentCreateInput } from './dto';
export { selectEntriesByReference, selectPaymentByReference } from './read';
export { mirroredRefund } from './refunds';
export { type CreditDocument, type PaymentEntryRow, type PaymentRow, VAT_MODES, type VatMode } from './schema';
export { paymentReferenceKey } from './create-payment';
export { contactDocumentPointerReads, type EntryDocumentRow, type PaymentDocumentRow } from './document-pointers';
export { recordPaymentStatements } from './record-payment';
export { validateCreate } from './validate';
