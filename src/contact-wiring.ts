import { audienceContactRecords } from './modules/audiences';
import { bookingContactRecords } from './modules/bookings';
import { installContactExtensions } from './modules/contacts';
import { dealContactRecords } from './modules/deals';
import { emailCampaignContactRecords } from './modules/email-campaigns';
import { emailContactRecords } from './modules/emails';
import { eventContactRecords } from './modules/events';
import { formContactRecords } from './modules/forms';
import { idempotencyKeyContactRecords } from './modules/idempotency-keys';
import { newsletterContactRecords, autoSubscribeStatements } from './modules/newsletters';
import { noteContactRecords } from './modules/notes';
import { orderContactRecords } from './modules/orders';
import { paymentRequestContactRecords } from './modules/payment-requests';
import { paymentContactRecords } from './modules/payments';
import { sandboxOutboxContactRecords } from './modules/sandbox-outbox';
import { suppressionContactRecords } from './modules/suppressions';
import { whatsappContactRecords } from './modules/whatsapp';

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
