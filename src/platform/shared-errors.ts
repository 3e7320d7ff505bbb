import { defineErrors } from './errors';

/**
 * Errors every router shares, in the framework shape: the request's shape and
 * values, authentication, limits, concurrency, the platform's own refusals, and
 * the 404s of records one module owns and others name.
 */
export const SharedErrors = defineErrors('framework', {
  // The request: its body, its query values, its headers.
  invalidRequest: { status: 400, message: '{problems}', list: true },
  bodyTooLarge: { status: 413, message: 'Request body is too large' },
  notJson: { status: 415, message: 'Content-Type must be application/json' },
  bodyNotUtf8: { status: 400, message: 'Request body is not valid UTF-8' },
  malformedJson: { status: 400, message: 'Malformed JSON in request body' },
  misreadValue: { status: 400, message: '{path}: {rule}', list: true },
  misreadBody: { status: 400, message: '{rule}', list: true },
  invalidBoolean: { status: 400, message: 'Invalid {name}: must be true or false' },
  invalidInteger: { status: 400, message: 'Invalid {name}: must be a non-negative integer' },
  invalidUuidParam: { status: 400, message: 'Invalid {name}: must be a UUID' },
  notOneOf: { status: 400, message: 'Invalid {name}: must be one of {values}' },
  controlCharacters: { status: 400, message: 'Invalid {name}: must not contain control characters' },
  invalidSort: { status: 400, message: 'Invalid sort: "{field}" is not a sortable field (one of {allowed})' },
  filterNotJson: { status: 400, message: 'Invalid filter: must be valid JSON' },
  filterNotObject: { status: 400, message: 'Invalid filter: must be a JSON object' },
  filterNotFinite: { status: 400, message: 'Invalid filter: numbers must be finite' },
  filterStrings: { status: 400, message: 'Invalid filter: strings {rule}' },
  invalidFilter: { status: 400, message: 'Invalid filter: {problem}' },
  filterValueNot: { status: 400, message: 'Invalid filter value for "{field}": "{value}" is not {expected}' },
  filterValueRule: { status: 400, message: 'Invalid filter value for "{field}": must be {rule}' },
  invalidBookmark: { status: 400, message: 'Invalid Bookmark header: send back a value this API returned' },
  invalidIdempotencyKey: { status: 400, code: 'INVALID_IDEMPOTENCY_KEY', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' },
  idempotencyKeyReused: {
    status: 422,
    code: 'IDEMPOTENCY_KEY_REUSED',
    message: 'This Idempotency-Key was used with a different method, path or body: send a new key for a different request',
  },
  idempotencyKeyInUse: {
    status: 409,
    code: 'IDEMPOTENCY_KEY_IN_USE',
    message: 'A request with this Idempotency-Key is still being processed: retry after it completes',
    headers: { 'Retry-After': '1' },
  },
  idempotencyKeyAnswerLost: {
    status: 409,
    code: 'IDEMPOTENCY_KEY_ANSWER_LOST',
    message: 'The request with this Idempotency-Key was carried out, but its answer was lost: read the resource to see the outcome',
  },
  unknownRoute: { status: 404, message: 'Cannot {method} {path}' },

  // Who may call, and how often.
  missingApiKey: { status: 401, message: 'Missing API key' },
  invalidApiKey: { status: 401, message: 'Invalid API key' },
  noApiAccess: { status: 403, message: 'The REST API requires a plan with API access. Upgrade your plan to use the API.' },
  crossOrigin: { status: 403, message: 'Cross-origin requests are not allowed: this API is for server-to-server use' },
  rateLimited: { status: 429, message: 'Rate limit exceeded: {limit} {per}. Retry after {seconds} seconds.' },
  failedAuthLimit: { status: 429, message: 'Too many failed authentication attempts from this source IP. Retry after {seconds} seconds.' },
  limiterUnavailable: { status: 503, message: 'Temporarily unavailable. Retry after {seconds} seconds.' },

  // The data layer and the platform's configuration.
  concurrentChange: { status: 409, message: 'The record was changed by concurrent requests while this one was applied; retry the request' },
  /**
   * A write to a shard still on an older schema would fail on whatever it lacks, half-way through a
   * route's work; it is refused whole instead, until the shard's sweep finds it migrated (the next
   * sweep re-reads the schema: a minute).
   */
  schemaUpgrading: {
    status: 503,
    code: 'SCHEMA_UPGRADING',
    message: "This workspace's database is being upgraded: retry in a minute",
    headers: { 'Retry-After': '60' },
  },
  shardNotFound: { status: 404, message: 'Shard not found: {binding}' },
  /**
   * A write reached the old shard of a workspace being switched to another (a move's fence,
   * src/platform/d1/moves/): refused whole, so nothing is written where it would be lost.
   */
  workspaceMoving: {
    status: 503,
    code: 'WORKSPACE_MOVING',
    message: 'This workspace is moving to another database: retry in a few seconds',
    headers: { 'Retry-After': '5' },
  },
  moveNotFound: { status: 404, message: 'Move not found' },
  moveWorkspaceNotFound: { status: 404, message: 'Workspace not found' },
  moveToSameShard: { status: 409, message: 'Workspace {ws} is already on {binding}' },
  moveToClosedShard: {
    status: 409,
    message: 'Shard {binding} is closed: open it (PATCH /admin/v1/shards/{binding}) before moving a workspace there',
  },
  moveRunning: { status: 409, message: 'Workspace {ws} is already moving (move {id}): start another once it is finished' },
  unknownShard: { status: 400, message: 'Unknown shard "{binding}": must be one of {shards}' },
  shardClosed: { status: 409, message: 'Shard {binding} is closed to new workspaces' },
  noShardRoom: { status: 503, message: 'No open shard has room for a new workspace: open a shard (PATCH /admin/v1/shards/{{binding}}) or add one' },
  whatsappTokenMissing: { status: 503, message: 'WHATSAPP_ACCESS_TOKEN is not configured' },
  unknownWhatsAppProvider: { status: 503, message: 'Unknown WHATSAPP_PROVIDER "{name}"' },

  // Records one module owns and others name.
  contactNotFound: { status: 404, message: 'Contact not found' },
  contactIdNotFound: { status: 404, message: 'contacts with ID {id} not found' },
  dealNotFound: { status: 404, message: 'Deal not found' },
  pipelineNotFound: { status: 404, message: 'Pipeline not found' },
  stageNotFound: { status: 404, message: 'Stage not found' },
  invalidPhone: { status: 400, message: 'phone must be a valid phone number', list: true },
});

/** The feature gate's own body, `{message, error_code}`, on every router. */
export const FeatureGateErrors = defineErrors('feature-gate', {
  notIncluded: {
    status: 403,
    code: 'FEATURE_NOT_INCLUDED_IN_PLAN',
    message: 'Your plan does not include the {feature} feature. Upgrade your plan to use this endpoint.',
  },
});

/** Request-shape violations on the routers that answer them in the domain envelope too (consent, suppressions). */
export const EnvelopeRequestErrors = defineErrors('domain', {
  invalidRequest: {
    status: 400,
    code: 'invalid_request',
    message: '{problems}',
    about: 'a request-shape violation (a non-UUID id, malformed paging, the body), its problems joined by `; `',
  },
});
