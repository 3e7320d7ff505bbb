export { listDeliveries } from './deliveries';
export { selectEndpoint } from './service';
export { directDeliveryRow, sendDirectDelivery } from './direct';
export { DELIVERY_STATES, type DeliveryState } from './schema';
export { getWebhookEvent } from './events-api';
