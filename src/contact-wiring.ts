import { audienceContactRecords } from './modules/audiences/contact-records';
import { bookingContactRecords } from './modules/bookings/contact-records';
import { installContactExtensions } from './modules/contacts/extensions';
import { dealContactRecords } from './modules/deals/contact-records';
import { emailCampaignContactRecords } from './modules/email-campaigns/contact-records';
import { emailContactRecords } from './modules/emails/contact-records';
import { eventContactRecords } from './modules/events/contact-records';
import { formContactRecords } from './modules/forms/contact-records';
import { idempotencyKeyContactRecords } from './modules/idempotency-keys/contact-records';
import { newsletterContactRecords } from './modules/newsletters/contact-records';
import { autoSubscribeStatements } from './modules/newsletters/auto-subscribe';
import { noteContactRecords } from './modules/notes/contact-records';
import { orderContactRecords } from './modules/orders/contact-records';
import { paymentRequestContactRecords } from './modules/payment-requests/contact-records';
import { paymentContactRecords } from './modules/payments/contact-records';
import { sandboxOutboxContactRecords } from './modules/sandbox-outbox/contact-records';
import { suppressionContactRecords } from './modules/suppressions/contact-records';
import { whatsappContactRecords } from './modules/whatsapp/contact-records';

export function wireContacts() {
  installContactExtensions({
    records: [
      eventContactRecords,
      emailContactRecords,
      suppressionContactRecords,
      sandboxOutboxContactRecords,
      idempotencyKeyContactRecords,
      noteContactRecords,
      newsletterContactRecords,
      formContactRecords,
      whatsappContactRecords,
      bookingContactRecords,
      paymentContactRecords,
      paymentRequestContactRecords,
      orderContactRecords,
      dealContactRecords,
      emailCampaignContactRecords,
      audienceContactRecords,
    ],
    tagsLinked: [autoSubscribeStatements],
  });
}
