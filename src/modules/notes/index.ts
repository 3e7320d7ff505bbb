export { noteContactRecords } from './contact-records';
