export { createNote } from './service';
