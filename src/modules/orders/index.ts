export { orderContactRecords } from './contact-records';
