export { orderContactId } from './read';
