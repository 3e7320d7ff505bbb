import { defineErrors } from '../../platform/errors';

/** Automations and their enrollments answer their own errors in the domain envelope (README "Errors"). */
export const AutomationErrors = defineErrors('AutomationErrors', {
  notFound: { status: 404, code: 'automation_not_found', message: 'Automation not found' },
  enrollmentNotFound: { status: 404, code: 'enrollment_not_found', message: 'Enrollment not found' },
  invalidDefinition: {
    status: 400,
    code: 'invalid_automation',
    message: '{path} {problem}',
    about: 'a trigger, step, exit or send window field is invalid; the message starts with its path (`steps[1].then[0].duration`)',
  },
  invalidTransition: { status: 409, code: 'invalid_status_transition', message: 'An automation that is {status} cannot be {action}' },
  notActive: { status: 409, code: 'automation_not_active', message: 'Only an active automation enrolls contacts; this one is {status}' },
  enrollmentRefused: {
    status: 409,
    code: 'enrollment_not_allowed',
    message: '{reason}',
    about: 'the automation\u2019s `re_enrollment` rule refuses this contact now; the message says which rule',
  },
  invalidListFilter: { status: 400, kind: 'request', message: 'Invalid {name}: must be one of {values}' },
  enrollmentEnded: { status: 409, code: 'enrollment_ended', message: 'The enrollment already ended ({status})' },
});
