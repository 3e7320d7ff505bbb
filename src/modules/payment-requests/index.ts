export { PaymentRequest } from './dto';
export { sandboxConfirmation } from './public';
export { serializePaymentRequest } from './read';
export { findPaymentRequest, locatePaymentRequest, paymentRequestNotFound, settlePaymentRequest } from './service';
