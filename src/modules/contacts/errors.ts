import { defineErrors } from '../../platform/errors';
import { SharedErrors } from '../../platform/shared-errors';

/** Contacts answer the framework shape (README "Errors"). */
export const ContactErrors = defineErrors('framework', {
  notFound: { status: 404, message: 'Contact {id} not found' },
  invalidEmail: { status: 400, message: 'email must be a valid email address', list: true },
  phoneBlacklisted: { status: 400, code: 'PHONE_BLACKLISTED', message: 'This phone number is blacklisted in the workspace' },
  limitReached: { status: 400, message: 'Limit reached. Your plan allows at most {cap} contacts.' },
  globalBlockLocked: { status: 400, message: 'Global blocks cannot be lifted through the API' },
  mergedFieldsTooLarge: { status: 400, message: 'custom_fields: after merging, {problem}', list: true },
  mergeRequired: {
    status: 409,
    code: 'CONTACT_MERGE_REQUIRED',
    message:
      'The phone and the email belong to two different contacts. Nothing was written; a merge request was opened and the sent fields are held on it.',
    fields: ['merge_request_id'],
  },
  mergeRequiredOnUpdate: {
    status: 409,
    code: 'CONTACT_MERGE_REQUIRED',
    message:
      'The phone or email already belongs, or previously belonged, to another contact. Nothing was written; a merge request was opened and the sent fields are held on it.',
    fields: ['merge_request_id'],
  },
  mergeResolved: { status: 409, message: 'Merge request is already resolved' },
  mergeTargetGone: { status: 409, message: 'The target contact of this merge request no longer exists' },
});

/** What naming a contact by `contact_id` or by phone/email (a deal's, an order's, ...) can answer, beside the route's own 400 when neither is given. */
export const CONTACT_REFERENCE_ERRORS = [
  SharedErrors.contactNotFound,
  SharedErrors.invalidPhone,
  ContactErrors.invalidEmail,
  ContactErrors.phoneBlacklisted,
  ContactErrors.limitReached,
  ContactErrors.mergeRequired,
];

/** What `POST /v1/contacts` answers beyond its body's schema, which a batch item answers too. */
export const CONTACT_WRITE_ERRORS = [
  SharedErrors.invalidPhone,
  ContactErrors.invalidEmail,
  ContactErrors.phoneBlacklisted,
  ContactErrors.globalBlockLocked,
  ContactErrors.mergedFieldsTooLarge,
  ContactErrors.limitReached,
  ContactErrors.mergeRequired,
];
