import { defineErrors } from '../../platform/errors';

/** A workspace's suppressions, and the platform list the operator API manages. */
export const SuppressionErrors = defineErrors('SuppressionErrors', {
  notFound: { status: 404, code: 'suppression_not_found', message: 'Suppression not found' },
  globalNotFound: { status: 404, message: 'Global suppression not found' },
  notRemovedEverywhere: { status: 503, message: 'Not removed from {shards}; retry the request' },
});
