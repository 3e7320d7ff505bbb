import { defineErrors } from '../../platform/errors';

/** Suppressions answer every error of their own in the domain envelope, request-shape violations included (README "Errors"). */
export const SuppressionErrors = defineErrors('domain', {
  notFound: { status: 404, code: 'suppression_not_found', message: 'Suppression not found' },
});

/** The platform list is managed through the operator API, which answers the framework shape. */
export const PlatformListErrors = defineErrors('framework', {
  notFound: { status: 404, message: 'Global suppression not found' },
  notRemovedEverywhere: { status: 503, message: 'Not removed from {shards}; retry the request' },
});
