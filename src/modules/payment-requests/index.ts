export { PaymentRequest } from './dto';
export { PaymentRequestErrors } from './errors';
export { sandboxConfirmation } from './public';
export { serializePaymentRequest } from './read';
export { findPaymentRequest, locatePaymentRequest } from './payment-request-lookup';
export { settlePaymentRequest } from './settle-payment-request';
