import { defineErrors } from '../../platform/errors';
import { SharedErrors } from '../../platform/shared-errors';

/** Contacts, their imports and exports, and the contact other records name. */
export const ContactErrors = defineErrors('ContactErrors', {
  notFound: { status: 404, message: 'Contact {id} not found' },
  // The contact another record names, as the routes naming it answer.
  referenceNotFound: { status: 404, message: 'Contact not found' },
  idNotFound: { status: 404, message: 'contacts with ID {id} not found' },
  invalidEmail: { status: 400, message: 'email must be a valid email address', list: true },
  phoneBlacklisted: { status: 400, code: 'PHONE_BLACKLISTED', message: 'This phone number is blacklisted in the workspace' },
  limitReached: { status: 400, message: 'Limit reached. Your plan allows at most {cap} contacts.' },
  globalBlockLocked: { status: 400, message: 'Global blocks cannot be lifted through the API' },
  mergedFieldsTooLarge: { status: 400, message: 'custom_fields: after merging, {problem}', list: true },
  mergeRequired: {
    status: 409,
    code: 'CONTACT_MERGE_REQUIRED',
    fields: ['merge_request_id'],
    variants: {
      onCreate:
        'The phone and the email belong to two different contacts. Nothing was written; a merge request was opened and the sent fields are held on it.',
      onUpdate:
        'The phone or email already belongs, or previously belonged, to another contact. Nothing was written; a merge request was opened and the sent fields are held on it.',
    },
  },
  mergeResolved: { status: 409, message: 'Merge request is already resolved' },
  mergeTargetGone: { status: 409, message: 'The target contact of this merge request no longer exists' },
  importNotCsv: { status: 400, code: 'IMPORT_NOT_CSV', message: 'Content-Type must be text/csv, with the file as the body' },
  importTooLarge: { status: 400, code: 'IMPORT_FILE_TOO_LARGE', message: 'The file is larger than 10 MB (10485760 bytes)' },
  importNotUtf8: { status: 400, code: 'IMPORT_NOT_UTF8', message: 'The file is not valid UTF-8' },
  importEmpty: { status: 400, code: 'IMPORT_FILE_EMPTY', message: 'The file is empty: it needs a header row and at least one data row' },
  importTooManyRows: { status: 400, code: 'IMPORT_TOO_MANY_ROWS', message: 'The file has more than 100000 data rows' },
  importMalformed: { status: 400, code: 'IMPORT_MALFORMED_CSV', message: 'The file is not valid CSV: {problem}' },
  importUnknownColumns: {
    status: 400,
    code: 'IMPORT_UNKNOWN_COLUMNS',
    message: 'Unknown columns: {columns}. A column is a contact write field, tags, groups or custom_fields.<key>',
  },
  importBadHeader: { status: 400, code: 'IMPORT_BAD_HEADER', message: 'The header row is invalid: {problem}' },
  importNotFound: { status: 404, message: 'Contact import {id} not found' },
  exportNotFound: { status: 404, message: 'Contact export {id} not found' },
  exportNotReady: { status: 409, code: 'EXPORT_NOT_READY', message: 'Contact export {id} is {status}: only a completed export can be downloaded' },
  exportExpired: { status: 410, code: 'EXPORT_EXPIRED', message: 'Contact export {id} has expired: export files are kept 7 days' },
});

/** What naming a contact by `contact_id` or by phone/email (a deal's, an order's, ...) can answer, beside the route's own 400 when neither is given. */
export const CONTACT_REFERENCE_ERRORS = [
  ContactErrors.referenceNotFound,
  SharedErrors.invalidPhone,
  ContactErrors.invalidEmail,
  ContactErrors.phoneBlacklisted,
  ContactErrors.limitReached,
  ContactErrors.mergeRequired.onCreate,
];

/** What `POST /v1/contacts` answers beyond its body's schema, which a batch item answers too. */
export const CONTACT_WRITE_ERRORS = [
  SharedErrors.invalidPhone,
  ContactErrors.invalidEmail,
  ContactErrors.phoneBlacklisted,
  ContactErrors.globalBlockLocked,
  ContactErrors.mergedFieldsTooLarge,
  ContactErrors.limitReached,
  ContactErrors.mergeRequired.onCreate,
];
