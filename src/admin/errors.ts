import { defineErrors } from '../platform/errors';

/** The operator API answers the framework shape (docs/operator-api.md). */
export const AdminErrors = defineErrors('AdminErrors', {
  invalidToken: { status: 401, message: 'Invalid operator token' },
  idNotUuid: { status: 400, message: '{name} must be a UUID', list: true },
  mergeRequestNotFound: { status: 404, message: 'Merge request not found' },
  emailSendNotFound: { status: 404, message: 'Email send not found' },
  unknownSweep: { status: 404, message: 'Unknown sweep "{name}" (available: {available})' },
});
