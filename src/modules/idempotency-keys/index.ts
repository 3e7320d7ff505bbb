export { idempotencyKeyContactRecords } from './contact-records';
