import { z } from '@hono/zod-openapi';
import { MOVE_STATUSES } from '../platform/control-schema';

/*
 * What the operator routes answer, as the operator API's OpenAPI document states it. Records
 * the public API also serves (pipelines, meeting types, sender profiles...) use its schemas.
 */

const id = () => z.string().uuid();
const instant = () => z.string().openapi({ format: 'date-time' });
const nullableInstant = () => instant().nullable();
const limits = z.object({}).catchall(z.number().int().nullable());

export const Workspace = z
  .object({
    id: id(),
    name: z.string(),
    timezone: z.string(),
    default_country: z.string(),
    currency: z.string(),
    api_access: z.boolean(),
    features: z.array(z.string()),
    caps: limits,
    lead_scoring: z.boolean(),
    email: z.object({
      monthly_quota: z.number().int().nullable().optional(),
      daily_warming_cap: z.number().int().nullable().optional(),
      paused: z.boolean().optional(),
    }),
    rate_limits: limits,
    whatsapp_phone_number_id: z.string(),
    vat: z.object({ mode: z.enum(['inclusive', 'exclusive']), rate: z.number() }),
    shard: z.string(),
    created_at: instant(),
    updated_at: instant(),
  })
  .openapi('OperatorWorkspace');

export const ApiKeyCreated = z
  .object({
    id: id(),
    workspace_id: id(),
    name: z.string(),
    key: z.string().openapi({ description: 'Shown only here; only its hash is stored' }),
    prefix: z.string(),
    created_at: instant(),
  })
  .openapi('OperatorApiKeyCreated');

export const ApiKeyRevoked = z
  .object({ id: id(), workspace_id: id(), name: z.string(), prefix: z.string(), created_at: instant(), revoked_at: instant() })
  .openapi('OperatorApiKeyRevoked');

export const User = z
  .object({
    id: id(),
    workspace_id: id(),
    name: z.string(),
    email: z.string(),
    role: z.enum(['admin', 'agent']),
    active: z.boolean(),
    created_at: instant(),
  })
  .openapi('OperatorUser');

export const RequestLog = z
  .object({
    data: z.array(
      z.object({
        id: z.string(),
        request_id: z.string().nullable().openapi({ description: "The answer's `X-Request-Id`; null for requests logged before it was kept" }),
        method: z.string(),
        path: z.string(),
        status: z.number().int(),
        duration_ms: z.number(),
        ip: z.string().nullable(),
        user_agent: z.string().nullable(),
        created_at: instant(),
      }),
    ),
  })
  .openapi('OperatorRequestLog');

export const BlacklistEntry = z.object({ id: id(), workspace_id: id(), phone: z.string(), created_at: instant() }).openapi('OperatorBlacklistEntry');

export const BusyBlock = z
  .object({ id: id(), user_id: id(), start_at: instant(), end_at: instant(), created_at: instant() })
  .openapi('OperatorBusyBlock');

export const EmbedKey = z
  .object({ embed_key: z.string().openapi({ description: 'The new `bk_` key; the old one stops working at once' }) })
  .openapi('OperatorEmbedKey');

export const NoShow = z.object({ id: id(), status: z.string(), no_show_marked_at: nullableInstant() }).openapi('OperatorNoShow');

export const Complaint = z
  .object({ contact_id: id(), channel: z.enum(['email', 'whatsapp']), complained_at: instant() })
  .openapi('OperatorComplaint');

export const MergeResolution = z
  .object({
    id: id(),
    workspace_id: id(),
    status: z.enum(['merged', 'dismissed']),
    target_contact_id: id(),
    other_contact_id: id(),
    contact: z.object({ id: id() }).openapi({ description: 'The surviving contact, as `GET /v1/contacts/{id}` reads it' }),
  })
  .openapi('OperatorMergeResolution');

export const AttendanceEvent = z
  .object({ id: id(), workspace_id: id(), name: z.string(), start_at: instant(), created_at: instant() })
  .openapi('OperatorEvent');

export const Attendance = z
  .object({
    id: id(),
    event_id: id(),
    contact_id: id(),
    status: z.string(),
    registered_at: nullableInstant(),
    attended_at: nullableInstant(),
    unregistered_at: nullableInstant(),
    created_at: instant(),
    updated_at: instant(),
  })
  .openapi('OperatorAttendance');

export const FormSubmission = z
  .object({
    id: id(),
    workspace_id: id(),
    form_id: id(),
    form_name: z.string(),
    origin: z.enum(['form', 'landing_page', 'popup']),
    fields: z.record(z.string(), z.unknown()),
    contact_id: id().nullable(),
    created_at: instant(),
  })
  .openapi('OperatorFormSubmission');

export const Snippet = z
  .object({
    id: id(),
    workspace_id: id(),
    name: z.string(),
    markdown: z.string().nullable(),
    html: z.string().nullable(),
    created_at: instant(),
    updated_at: instant(),
  })
  .openapi('OperatorSnippet');

export const Outbox = z
  .object({
    data: z.array(
      z.object({
        id: z.string(),
        channel: z.enum(['email', 'whatsapp']),
        to: z.string(),
        from: z.string().nullable(),
        subject: z.string().nullable(),
        html: z.string().nullable(),
        text: z.string().nullable(),
        headers: z.unknown(),
        body: z.unknown(),
        attachments: z
          .array(z.object({ filename: z.string(), content_type: z.string(), content_base64: z.string() }))
          .openapi({ description: "An email's files (a booking's `invite.ics`), the bytes in base64; empty when it has none" }),
        created_at: instant(),
      }),
    ),
  })
  .openapi('OperatorOutbox');

export const SendEventRecorded = z
  .object({
    send_id: id(),
    type: z.string(),
    recorded: z.boolean(),
    event: z.string().nullable().openapi({ description: 'The `email.*` event fired, if any' }),
  })
  .openapi('OperatorSendEvent');

export const GlobalSuppression = z
  .object({ email: z.string().openapi({ description: 'Trimmed and lower-cased' }), reason: z.string(), created_at: instant() })
  .openapi('OperatorGlobalSuppression');

export const GlobalSuppressionList = z
  .object({
    data: z.array(GlobalSuppression),
    total: z.number().int().openapi({ description: 'Entries matching `email` and `after`, whatever `limit` and `offset`' }),
    limit: z.number().int(),
    offset: z.number().int(),
    next_after: z.string().nullable().openapi({ description: 'Pass as `after` for the next page; null on the last one' }),
  })
  .openapi('OperatorGlobalSuppressionList');

export const GlobalSuppressionRemoved = z.object({ success: z.literal(true) }).openapi('OperatorGlobalSuppressionRemoved');

export const Subscription = z
  .object({
    id: id(),
    newsletter_id: id(),
    contact_id: id(),
    status: z.string(),
    last_issue_number: z.number().int(),
    next_catchup_at: nullableInstant(),
    source: z.string(),
    subscribed_at: instant(),
    unsubscribed_at: nullableInstant(),
    created_at: instant(),
    updated_at: instant(),
  })
  .openapi('OperatorNewsletterSubscription');

export const SweepRun = z
  .object({
    name: z.string(),
    result: z.record(z.string(), z.number()).openapi({ description: 'Counts added up over the shards' }),
    shards: z.record(z.string(), z.record(z.string(), z.unknown())).openapi({ description: "Each shard's counts, or its `error`" }),
  })
  .openapi('OperatorSweepRun');

export const WebhookDeliveries = z
  .object({
    data: z.array(
      z.object({
        id: id(),
        event_id: z.string(),
        event_type: z.string(),
        endpoint_id: id(),
        url: z.string(),
        state: z.string(),
        attempts: z.number().int(),
        last_status: z.number().int().nullable(),
        last_error: z.string().nullable(),
        next_attempt_at: nullableInstant(),
        created_at: instant(),
        updated_at: instant(),
      }),
    ),
  })
  .openapi('OperatorWebhookDeliveries');

const ShardView = z
  .object({
    binding: z.string().openapi({ description: 'The D1 binding (`SHARD_<n>`)' }),
    workspaces: z.number().int().openapi({ description: 'Workspaces placed on it' }),
    size_bytes: z
      .number()
      .int()
      .openapi({ description: "The database's size as D1 reported it at the shard's last sweep (every minute), or when first listed" }),
    state: z.enum(['open', 'closed']).openapi({ description: '`closed`: takes no new workspace; its workspaces are served as before' }),
  })
  .openapi('OperatorShard');

export const Shard = ShardView;
export const Shards = z.object({ data: z.array(ShardView) }).openapi('OperatorShards');

export const ContactExport = z
  .object({
    contact: z.record(z.string(), z.unknown()).openapi({ description: 'As `GET /v1/contacts/{id}` answers it' }),
    truncated: z.record(z.string(), z.number().int()).openapi({ description: 'Each kind holding more rows than given, with its total' }),
    limit: z.number().int(),
    offset: z.number().int(),
    exported_at: z.string(),
  })
  .catchall(z.array(z.record(z.string(), z.unknown())))
  .openapi('OperatorContactExport', { description: 'Besides these keys, one array per kind of record' });

export const ContactErased = z.object({ id: id(), erased_at: z.string() }).openapi('OperatorContactErased');

const scoringRule = z.union([
  z.object({ signal: z.string(), points: z.number().int() }),
  z.object({ field: z.string(), equals: z.union([z.string(), z.number(), z.boolean()]), points: z.number().int() }),
]);

export const ScoringConfiguration = z
  .object({
    enabled: z.boolean(),
    rules: z.array(scoringRule),
    half_life_days: z.number().int().nullable(),
    rescoring: z.boolean().openapi({ description: 'Whether a background rescoring of the workspace is under way' }),
    updated_at: nullableInstant(),
  })
  .openapi('ScoringConfiguration');
const MoveView = z
  .object({
    id: z.string().openapi({ description: 'The move id' }),
    workspace_id: z.string(),
    from: z.string().openapi({ description: 'The shard the workspace was on when the move started' }),
    to: z.string().openapi({ description: 'The shard it moves to' }),
    status: z.enum(MOVE_STATUSES).openapi({
      description:
        '`copying` -> `switching` (writes answer 503 `WORKSPACE_MOVING` for a few seconds) -> `done`; or `failed`, the workspace still served from `from`',
    }),
    copied_rows: z.number().int().openapi({ description: 'Rows copied so far by the bulk copy (writes replayed after it are not counted)' }),
    error: z.string().nullable().openapi({ description: 'Why it failed; while it runs, the last failed step (retried)' }),
    started_at: z.string(),
    finished_at: z.string().nullable().openapi({ description: 'When it switched (`done`) or failed; the old copy is cleared after' }),
  })
  .openapi('OperatorMove');

export const Move = MoveView;
export const Moves = z.object({ data: z.array(MoveView) }).openapi('OperatorMoves');
