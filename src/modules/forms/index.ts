export { formContactRecords } from './contact-records';
export { submitForm } from './service';
