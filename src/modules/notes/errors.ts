import { defineErrors } from '../../platform/errors';

/** Notes answer the framework shape (README "Errors"). */
export const NoteErrors = defineErrors('NoteErrors', {
  notFound: { status: 404, message: 'Note not found' },
});
