export { type BulkEmail, type BulkOutcome, sendEmailBatch } from './bulk-send';
export { type FactCounter, locateSend, registerFactCounter, reportFact } from './delivery-facts';
export { displayName, headerText } from './header-safety';
export { type SendContext, sendEmail } from './send';
export type { EmailAttachment } from '../../providers/email';
export { EmailErrors } from './errors';
