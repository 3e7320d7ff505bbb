export { submitForm } from './service';
