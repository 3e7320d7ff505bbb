export { MAX_AMOUNT, type PaymentCreateInput } from './dto';
export { selectEntriesByReference, selectPaymentByReference } from './read';
export { mirroredRefund } from './refunds';
export { type CreditDocument, type PaymentEntryRow, type PaymentRow, VAT_MODES, type VatMode } from './schema';
export {
  contactDocumentPointerReads,
  type EntryDocumentRow,
  type PaymentDocumentRow,
  recordPaymentStatements,
  paymentReferenceKey,
} from './service';
export { validateCreate } from './validate';
