import { defineErrors } from '../../platform/errors';

/** Transactional email, its tracking links and the providers' webhooks. */
export const EmailErrors = defineErrors('EmailErrors', {
  validationFailed: {
    status: 400,
    code: 'validation_failed',
    variants: {
      noContent: 'Provide html or text (or both)',
      headerNotAllowed: 'Header "{name}" is not allowed: only {allowed} may be set',
      headerNotString: 'Header {name} must be a string',
      headerTooLong: 'Header {name} must be at most {max} characters',
      headerControl: 'Header {name} must not contain control characters',
      headerEmpty: 'Header {name} must not be empty',
      metadataTooLarge: 'metadata exceeds {max} bytes serialized',
      keyMismatch: 'The Idempotency-Key header and the body field idempotency_key differ: send the same key in both, or the body field alone',
    },
  },
  invalidRecipient: { status: 422, code: 'invalid_recipient', message: '`to` must be a valid email address' },
  notFound: { status: 404, code: 'email_not_found', message: 'Email not found' },
  invalidDateFilter: { status: 400, message: 'Invalid {name}: must be an ISO 8601 date-time with a time zone', kind: 'request' },
  quotaExceeded: { status: 402, code: 'quota_exceeded', message: 'The monthly email quota of this workspace is exhausted' },
  noVerifiedSender: {
    status: 409,
    code: 'no_verified_sender',
    variants: {
      none: 'No sender profile on a verified sending domain is available',
      noValidAddress: 'The sender profile has no valid from address',
    },
  },
  sendInProgress: {
    status: 409,
    code: 'send_in_progress',
    message: 'A send with this idempotency_key is in progress; retry shortly with the same key',
  },
  warmingCapExceeded: {
    status: 429,
    code: 'warming_cap_exceeded',
    message: 'The daily domain-warming cap is reached; retry after the daily reset (00:00 UTC)',
  },
  providerError: { status: 502, code: 'provider_error', message: '{detail}. The idempotency key is released and safe to retry' },
  workspacePaused: { status: 503, code: 'workspace_paused', message: 'Sending is paused for this workspace by deliverability protection' },
  /** Email campaigns and newsletter issues are scheduled the same way. */
  invalidScheduledAt: { status: 400, code: 'invalid_scheduled_at', message: 'scheduled_at must be a future instant' },
  unknownLink: { status: 404, message: 'Unknown tracking link' },
  unknownProvider: { status: 404, message: 'Unknown email provider "{name}"' },
  invalidSignature: { status: 401, message: '{reason}', about: 'a bad or missing signature: nothing recorded' },
});
