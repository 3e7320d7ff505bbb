export { DEFAULT_EVENT_TYPES, EVENT_TYPES, type EventType, isDeliveredTo } from './catalog';
export { eventContactRecords } from './contact-records';
export { eventOutbox } from './schema';
