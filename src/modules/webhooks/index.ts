export { listDeliveries } from './deliveries';
export { DELIVERY_STATES, type DeliveryState } from './schema';
