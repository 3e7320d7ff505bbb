import { defineErrors } from '../../platform/errors';
import { MAX_AMOUNT, METADATA_MAX_BYTES } from './dto';

/** Payments answer the framework shape (README "Errors"). */
export const PaymentErrors = defineErrors('PaymentErrors', {
  notFound: { status: 404, message: 'Payment not found' },
  entryNotFound: { status: 404, message: 'Payment entry not found' },
  noContact: { status: 400, message: 'Provide contact_id, or a phone/email to attach the payment to a contact' },
  invalidType: { status: 400, message: 'Invalid payment type' },
  negativeAmount: { status: 400, message: 'amount must be a non-negative number' },
  amountTooLarge: { status: 400, message: `amount must be at most ${MAX_AMOUNT}` },
  metadataTooLarge: { status: 400, message: `metadata exceeds ${METADATA_MAX_BYTES} bytes serialized` },
  metadataOutOfBounds: { status: 400, message: 'metadata {problem}' },
  invalidMaxOccurrences: { status: 400, message: 'recurringMaxOccurrences must be a whole number of at least 1' },
  invalidEndAt: { status: 400, message: 'recurringEndAt is not a valid date' },
  endBeforePurchase: { status: 400, message: 'recurringEndAt must be after the purchase date' },
  vatNotRecurring: { status: 400, message: 'vatMode/vatRate apply to recurring plans only' },
  vatHalf: { status: 400, message: 'vat_mode and vat_rate must be provided together' },
  invalidVatRate: { status: 400, message: 'vat_rate must be a percent from 0 to 100 with at most 2 decimals' },
  installmentsTooFew: { status: 400, message: 'installmentCount must be at least 2 for an installment deal' },
  installmentsTooMany: { status: 400, message: 'installmentCount must be at most 360' },
  invalidPurchaseDate: { status: 400, message: 'purchaseDate is not a valid date' },
  hasRefunds: { status: 400, message: 'This charge already has refunds; reverse those instead of marking it refunded/failed' },
  amountBelowRefunded: { status: 400, message: 'amount cannot be lower than the amount already refunded' },
  notRecurring: { status: 400, message: 'Only recurring payments can be cancelled' },
  refundEntryNotMarkable: { status: 400, message: 'Refund entries cannot be marked directly' },
  refundNotPositive: { status: 400, message: 'Refund amount must be a positive number' },
  entryRequired: { status: 400, message: 'entryId is required to refund a payment with multiple charges' },
  chargeNotRefundable: { status: 400, message: 'Only a completed (recognized) charge can be refunded' },
  chargeNoLongerRefundable: { status: 400, message: 'This charge is no longer refundable' },
  chargeNotRecognized: { status: 400, message: 'This charge is not recognized as revenue yet and cannot be refunded' },
  chargeFullyRefunded: { status: 400, message: 'This charge is already fully refunded' },
  refundExceedsBalance: { status: 400, message: 'Refund amount exceeds the refundable balance ({balance})' },
});
