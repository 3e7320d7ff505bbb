import { defineErrors } from './errors';

/**
 * Errors every router shares: the request's shape and values, authentication,
 * limits, concurrency and the platform's own refusals. A record's not-found is
 * its module's.
 */
export const SharedErrors = defineErrors('SharedErrors', {
  // The request: its body, its query values, its headers.
  invalidRequest: { kind: 'request', status: 400, message: '{problems}', list: true },
  bodyTooLarge: { kind: 'platform', status: 413, message: 'Request body is too large' },
  notJson: { kind: 'platform', status: 415, message: 'Content-Type must be application/json' },
  bodyNotUtf8: { kind: 'platform', status: 400, message: 'Request body is not valid UTF-8' },
  malformedJson: { kind: 'platform', status: 400, message: 'Malformed JSON in request body' },
  misreadValue: { kind: 'platform', status: 400, message: '{path}: {rule}', list: true },
  misreadBody: { kind: 'platform', status: 400, message: '{rule}', list: true },
  invalidBoolean: { kind: 'request', status: 400, message: 'Invalid {name}: must be true or false' },
  invalidInteger: { kind: 'request', status: 400, message: 'Invalid {name}: must be a non-negative integer' },
  invalidUuidParam: { kind: 'request', status: 400, message: 'Invalid {name}: must be a UUID' },
  notOneOf: { kind: 'request', status: 400, message: 'Invalid {name}: must be one of {values}' },
  controlCharacters: { kind: 'request', status: 400, message: 'Invalid {name}: must not contain control characters' },
  invalidSort: { kind: 'request', status: 400, message: 'Invalid sort: "{field}" is not a sortable field (one of {allowed})' },
  filterNotJson: { kind: 'request', status: 400, message: 'Invalid filter: must be valid JSON' },
  filterNotObject: { kind: 'request', status: 400, message: 'Invalid filter: must be a JSON object' },
  filterNotFinite: { kind: 'request', status: 400, message: 'Invalid filter: numbers must be finite' },
  filterStrings: { kind: 'request', status: 400, message: 'Invalid filter: strings {rule}' },
  invalidFilter: { kind: 'request', status: 400, message: 'Invalid filter: {problem}' },
  filterValueNot: { kind: 'request', status: 400, message: 'Invalid filter value for "{field}": "{value}" is not {expected}' },
  filterValueRule: { kind: 'request', status: 400, message: 'Invalid filter value for "{field}": must be {rule}' },
  invalidBookmark: { kind: 'platform', status: 400, message: 'Invalid Bookmark header: send back a value this API returned' },
  invalidIdempotencyKey: {
    kind: 'platform',
    status: 400,
    code: 'INVALID_IDEMPOTENCY_KEY',
    message: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
  },
  idempotencyKeyReused: {
    status: 422,
    kind: 'platform',
    code: 'IDEMPOTENCY_KEY_REUSED',
    message: 'This Idempotency-Key was used with a different method, path or body: send a new key for a different request',
  },
  idempotencyKeyInUse: {
    status: 409,
    kind: 'platform',
    code: 'IDEMPOTENCY_KEY_IN_USE',
    message: 'A request with this Idempotency-Key is still being processed: retry after it completes',
    headers: { 'Retry-After': '1' },
  },
  idempotencyKeyAnswerLost: {
    status: 409,
    kind: 'platform',
    code: 'IDEMPOTENCY_KEY_ANSWER_LOST',
    message: 'The request with this Idempotency-Key was carried out, but its answer was lost: read the resource to see the outcome',
  },
  unknownRoute: { kind: 'platform', status: 404, message: 'Cannot {method} {path}' },

  // Who may call, and how often.
  missingApiKey: { kind: 'platform', status: 401, message: 'Missing API key' },
  /**
   * An `Authorization` header with another scheme or none (`wsk_...` alone): the contract's message for a
   * missing key is exact, so the header says what is wrong, in the form RFC 6750 gives it.
   */
  notBearerScheme: {
    kind: 'platform',
    status: 401,
    message: 'Missing API key',
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_request", error_description="Authorization header must use the Bearer scheme"' },
  },
  invalidApiKey: { kind: 'platform', status: 401, message: 'Invalid API key' },
  noApiAccess: { kind: 'platform', status: 403, message: 'The REST API requires a plan with API access. Upgrade your plan to use the API.' },
  crossOrigin: { kind: 'platform', status: 403, message: 'Cross-origin requests are not allowed: this API is for server-to-server use' },
  rateLimited: { kind: 'platform', status: 429, message: 'Rate limit exceeded: {limit} {per}. Retry after {seconds} seconds.' },
  failedAuthLimit: {
    kind: 'platform',
    status: 429,
    message: 'Too many failed authentication attempts from this source IP. Retry after {seconds} seconds.',
  },
  limiterUnavailable: { kind: 'platform', status: 503, message: 'Temporarily unavailable. Retry after {seconds} seconds.' },

  // The data layer and the platform's configuration.
  concurrentChange: {
    kind: 'platform',
    status: 409,
    message: 'The record was changed by concurrent requests while this one was applied; retry the request',
  },
  /**
   * A write to a shard still on an older schema would fail on whatever it lacks, half-way through a
   * route's work; it is refused whole instead, until the shard's sweep finds it migrated (the next
   * sweep re-reads the schema: a minute).
   */
  schemaUpgrading: {
    status: 503,
    kind: 'platform',
    code: 'SCHEMA_UPGRADING',
    message: "This workspace's database is being upgraded: retry in a minute",
    headers: { 'Retry-After': '60' },
  },
  shardNotFound: { kind: 'platform', status: 404, message: 'Shard not found: {binding}' },
  /**
   * A write reached the old shard of a workspace being switched to another (a move's fence,
   * src/platform/d1/workspace-moves/): refused whole, so nothing is written where it would be lost.
   */
  workspaceMoving: {
    status: 503,
    kind: 'platform',
    code: 'WORKSPACE_MOVING',
    message: 'This workspace is moving to another database: retry in a few seconds',
    headers: { 'Retry-After': '5' },
  },
  moveNotFound: { kind: 'platform', status: 404, message: 'Move not found' },
  moveWorkspaceNotFound: { kind: 'platform', status: 404, message: 'Workspace not found' },
  moveToSameShard: { kind: 'platform', status: 409, message: 'Workspace {ws} is already on {binding}' },
  moveToClosedShard: {
    status: 409,
    kind: 'platform',
    message: 'Shard {binding} is closed: open it (PATCH /admin/v1/shards/{binding}) before moving a workspace there',
  },
  moveRunning: { kind: 'platform', status: 409, message: 'Workspace {ws} is already moving (move {id}): start another once it is finished' },
  unknownShard: { kind: 'platform', status: 400, message: 'Unknown shard "{binding}": must be one of {shards}' },
  shardClosed: { kind: 'platform', status: 409, message: 'Shard {binding} is closed to new workspaces' },
  noShardRoom: {
    kind: 'platform',
    status: 503,
    message: 'No open shard has room for a new workspace: open a shard (PATCH /admin/v1/shards/{{binding}}) or add one',
  },
  whatsappTokenMissing: { kind: 'platform', status: 503, message: 'WHATSAPP_ACCESS_TOKEN is not configured' },
  unknownWhatsAppProvider: { kind: 'platform', status: 503, message: 'Unknown WHATSAPP_PROVIDER "{name}"' },

  // Limits of the plan, on whichever router counts the records.
  planLimitExceeded: {
    status: 403,
    kind: 'platform',
    code: 'PLAN_LIMIT_EXCEEDED',
    variants: {
      deals: 'Deal limit reached: your plan allows max_deals {cap}',
      orders: 'Order limit reached: your plan allows max_orders {cap}',
      newsletters: 'Newsletter limit reached: your plan allows max_newsletters {cap}',
    },
  },
  invalidPhone: { status: 400, message: 'phone must be a valid phone number', list: true, kind: 'request' },

  // The feature gate's own body, `{message, error_code}`, on every router.
  featureNotIncluded: {
    status: 403,
    kind: 'feature-gate',
    code: 'FEATURE_NOT_INCLUDED_IN_PLAN',
    message: 'Your plan does not include the {feature} feature. Upgrade your plan to use this endpoint.',
  },
});

/** The feature gate's refusal by the name its callers know. */
export const FeatureGateErrors = { notIncluded: SharedErrors.featureNotIncluded };
