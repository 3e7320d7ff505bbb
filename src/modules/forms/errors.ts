import { defineErrors } from '../../platform/errors';

/** Form submissions come through the operator API, which answers the framework shape. */
export const FormErrors = defineErrors('FormErrors', {
  noContact: { status: 400, message: 'contact needs an email or a phone' },
});
