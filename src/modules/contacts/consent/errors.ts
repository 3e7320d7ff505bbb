import { defineErrors } from '../../../platform/errors';

/** Consent answers every error of its own in the domain envelope, request-shape violations included (README "Errors"). */
export const ConsentErrors = defineErrors('ConsentErrors', {
  contactNotFound: { status: 404, code: 'contact_not_found', message: 'Contact not found' },
  invalidChannel: { status: 400, code: 'invalid_channel', message: 'Unknown channel "{channel}": use whatsapp or email' },
  stickyComplained: {
    status: 409,
    code: 'consent_sticky_complained',
    message: 'A spam complaint is on record for the {channel} channel; its consent cannot be changed',
  },
});
