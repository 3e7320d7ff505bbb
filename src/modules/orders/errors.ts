import { defineErrors } from '../../platform/errors';
import { MAX_AMOUNT, MAX_QUANTITY } from './dto';

/** Orders answer the framework shape, with an `error_code` on rule violations (README "Errors"). */
export const OrderErrors = defineErrors('OrderErrors', {
  notFound: { status: 404, message: 'Order not found' },
  noContact: { status: 400, message: 'Provide contact_id, or a phone/email to attach the order to a contact' },
  itemTitleRequired: { status: 400, message: 'Order items require a title or product_id' },
  negativeAmount: { status: 400, message: '{field} must be a non-negative number' },
  amountTooLarge: { status: 400, message: `{field} must be at most ${MAX_AMOUNT}` },
  quantityNotPositive: { status: 400, message: '{item}.quantity must be a positive number' },
  quantityTooLarge: { status: 400, message: `{item}.quantity must be at most ${MAX_QUANTITY}` },
  discountOutOfRange: { status: 400, message: '{item}.discount_percent must be between 0 and 100' },
  lineTotalTooLarge: { status: 400, message: `{item}: line_total must be at most ${MAX_AMOUNT}` },
  totalTooLarge: { status: 400, message: `The order total must be at most ${MAX_AMOUNT}` },
  invalidPlacedAt: { status: 400, message: 'placed_at is not a valid date' },
  itemPriceRequired: { status: 400, code: 'ORDER_ITEM_PRICE_REQUIRED', message: '{item}: unit_price is required for a product with dynamic pricing' },
  dealNotFound: { status: 404, code: 'ORDER_DEAL_NOT_FOUND', message: 'deal_id does not name a deal of this workspace' },
  dealContactMismatch: { status: 409, code: 'ORDER_DEAL_CONTACT_MISMATCH', message: 'The deal belongs to another contact than the order' },
  storeSyncedReadOnly: { status: 409, code: 'STORE_SYNCED_READ_ONLY', message: 'This order is synced from a store and is read-only' },
  refundNotPositive: { status: 400, message: 'Refund amount must be a positive number' },
  invalidRefundedAt: { status: 400, message: 'refundedAt is not a valid date' },
  neverPaid: { status: 400, code: 'ORDER_NEVER_PAID', message: 'This order was never paid; only paid orders can be refunded' },
  refundExceedsTotal: { status: 400, message: "Refund amount exceeds the order's remaining total ({remaining})" },
  illegalTransition: { status: 409, code: 'ORDER_ILLEGAL_TRANSITION', message: 'An order that is {status} cannot be marked paid' },
  paymentAlreadyLinked: {
    status: 409,
    code: 'ORDER_PAYMENT_ALREADY_LINKED',
    message: 'Another payment is already linked to this order, or this payment backs another order',
  },
  paymentReferenceNotFound: {
    status: 404,
    code: 'ORDER_PAYMENT_REFERENCE_NOT_FOUND',
    message: 'No payment of this workspace has this external_reference',
  },
  paymentContactMismatch: { status: 409, code: 'ORDER_PAYMENT_CONTACT_MISMATCH', message: 'The payment belongs to another contact than the order' },
  paymentNotLinkable: { status: 409, code: 'ORDER_PAYMENT_NOT_LINKABLE', message: 'Only a one-time payment with a completed charge can be linked' },
  invalidUuidFilter: { status: 400, message: '{name} must be a UUID' },
  invalidDateFilter: { status: 400, message: '{name} is not a valid date' },
});
