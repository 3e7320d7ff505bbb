import { defineErrors } from '../../platform/errors';
import { MAX_AMOUNT } from '../payments';

/** Payment requests answer the framework shape (README "Errors"); the provider webhook too. */
export const PaymentRequestErrors = defineErrors('PaymentRequestErrors', {
  notFound: { status: 404, message: 'Payment request not found' },
  noContact: { status: 400, message: 'Provide contact_id, or a phone/email to attach the payment request to a contact' },
  amountNotPositive: { status: 400, message: 'amount must be greater than 0' },
  amountTooLarge: { status: 400, message: `amount must be at most ${MAX_AMOUNT}` },
  vatHalf: { status: 400, message: 'vat_mode and vat_rate must be provided together' },
  invalidVatRate: { status: 400, message: 'vat_rate must be a percent from 0 to 100 with at most 2 decimals' },
  invalidExpiresAt: { status: 400, message: 'expires_at must be an ISO 8601 instant with a time zone' },
  expiresInPast: { status: 400, message: 'expires_at must be in the future' },
  dealContactMismatch: {
    status: 409,
    code: 'PAYMENT_REQUEST_DEAL_CONTACT_MISMATCH',
    message: 'The deal belongs to another contact than the payment request',
  },
  notPending: { status: 409, code: 'payment_request_not_pending', message: 'Only a pending payment request can be cancelled (this one is {status})' },
  unknownProvider: { status: 404, message: 'Unknown payment provider "{name}"' },
  webhookRejected: { status: 400, message: '{reason}', about: 'a bad or stale signature: nothing changed' },
});
