import { z } from '@hono/zod-openapi';
import { EVENT_CATALOG, type EventType } from '../../platform/event-catalog';

/**
 * The `data` of every event type (the live families as docs/events.md
 * describes them). Keyed by the catalogue's types with
 * `satisfies`, so a new event type does not compile without its payload; the
 * app registers one OpenAPI 3.1 `webhooks` entry per type from this table.
 */
const id = () => z.string().openapi({ format: 'uuid' });
const time = () => z.string().openapi({ format: 'date-time' });
const openSet = (description: string) => z.string().openapi({ description: `${description} (open set)` });

const contactProjection = z
  .object({
    id: id(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    lifecycle_stage: z.string().nullable(),
    source: z.string().nullable(),
    block_state: z.string(),
    lead_score: z.number().nullable(),
  })
  .openapi('EventContactProjection');

const consentState = z.enum(['subscribed', 'unsubscribed', 'unknown']);

const contactCreated = z.object({
  contact_id: id(),
  contact: contactProjection,
  source: openSet('Surface that performed the write'),
  duplicate: z.literal(false),
});
const contactUpdated = z.object({
  contact_id: id(),
  contact: contactProjection,
  source: openSet('Surface that performed the write'),
  changed_fields: z.array(z.string()).openapi({ description: 'Changed columns, `tags`, `groups` and `custom_fields.<key>` entries' }),
});
const contactDeleted = z.object({ contact_id: id(), phone: z.string().nullable(), email: z.string().nullable(), name: z.string().nullable() });
const consentChanged = z.object({
  contact_id: id(),
  channel: z.enum(['whatsapp', 'email']),
  action: openSet('Consent-ledger action: `opt_in`, `unsubscribe`, `resubscribe`, `complaint`, ...'),
  consent_state: consentState,
  previous_state: consentState.nullable(),
  basis: z.string().nullable(),
  consent_event_id: id(),
  source: openSet('Surface that performed the write'),
});

const deal = z.object({
  deal_id: id(),
  contact_id: id(),
  pipeline_id: id(),
  pipeline_name: z.string(),
  stage_id: id(),
  stage_name: z.string(),
  from_stage_id: id().nullable().openapi({ description: 'Non-null only on `deal.stage_changed`' }),
  from_stage_name: z.string().nullable(),
  status: z.enum(['open', 'won', 'lost']),
  title: z.string(),
  amount: z.number().nullable(),
  currency: z.string(),
  owner_user_id: id().nullable(),
  external_reference: z.string().nullable(),
  source: openSet('The deal source'),
  expected_close_at: z.string().nullable(),
  closed_at: z.string().nullable(),
  lost_reason: z.string().nullable(),
});

const attendance = z.object({
  attendance_id: id(),
  event_id: id(),
  contact_id: id(),
  status: openSet('`registered`, `attending`, `attended`, `no_show`, `cancelled`'),
  previous_status: z.string().nullable(),
  registered_at: z.string().nullable(),
  attended_at: z.string().nullable(),
  unregistered_at: z.string().nullable(),
  event: z.object({ id: id(), name: z.string(), start_at: z.string().nullable() }).nullable(),
});

const form = z.object({
  form_id: id(),
  form_name: z.string(),
  submission_id: id().openapi({ description: 'Unique per submission; a secondary dedup key' }),
  contact_id: id().nullable(),
  origin: openSet('`form`, `landing_page`, `popup`'),
  fields: z.record(z.string(), z.unknown()).openapi({ description: 'The submitted values, verbatim' }),
  submitted_at: time(),
});

/** Automation events (src/modules/automations/event-payload.ts). */
const enrollment = z.object({
  automation_id: id(),
  enrollment_id: id(),
  automation_version: z.number().int(),
  contact_id: id().nullable(),
  status: z.enum(['active', 'completed', 'exited', 'cancelled', 'failed']),
  trigger: z.object({ event_id: id(), event_type: z.string() }).nullable(),
  exit_reason: z.string().nullable(),
  enrolled_at: time(),
  ended_at: time().nullable(),
});
const automationWebhook = z.object({
  automation_id: id(),
  enrollment_id: id(),
  step_id: z.string(),
  contact_id: id(),
  contact: contactProjection,
  trigger: z.object({ event_id: id(), event_type: z.string(), data: z.record(z.string(), z.unknown()) }).nullable(),
});

/** Email events (src/modules/emails/delivery-facts.ts): optional fields are omitted, never null. */
const email = (extra: Record<string, z.ZodTypeAny> = {}) =>
  z.object({
    send_id: z.string(),
    idempotency_key: z.string(),
    to: z.string(),
    reason: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    ...extra,
  });

const money = () => z.number();
const order = (refund = false) =>
  z.object({
    order_id: id(),
    external_id: z.string().nullable(),
    number: z.string().openapi({ description: 'The store display number, else the sequential `order_number`' }),
    platform: openSet('`api`, `manual`, `automation`'),
    store_connection_id: z.string().nullable(),
    financial_status: z.enum(['pending', 'paid', 'partially_paid', 'refunded', 'partially_refunded', 'voided']),
    fulfillment_status: z.enum(['unfulfilled', 'partially_fulfilled', 'fulfilled']),
    currency: z.string(),
    total: money(),
    subtotal: money(),
    discount_total: money(),
    shipping_total: money(),
    tax_total: money(),
    refunded_total: money(),
    coupon_codes: z.array(z.string()),
    item_count: z.number().int(),
    first_item_name: z.string().nullable(),
    placed_at: z.string().nullable(),
    paid_at: z.string().nullable(),
    cancelled_at: z.string().nullable(),
    refunded_at: z.string().nullable(),
    created_at: z.string().nullable(),
    ...(refund
      ? {
          refund: z.object({
            amount: money(),
            external_refund_id: z.string().nullable(),
            reason: z.string().nullable(),
            refunded_at: z.string().nullable(),
          }),
        }
      : {}),
  });

const paymentRequest = z.object({
  payment_request_id: id(),
  status: z.enum(['pending', 'paid', 'expired', 'cancelled']),
  contact_id: id(),
  deal_id: id().nullable(),
  provider: z.enum(['sandbox', 'stripe']),
  amount: money(),
  currency: z.string(),
  title: z.string().nullable(),
  vat_mode: z.enum(['inclusive', 'exclusive']).nullable(),
  vat_rate: z.number().nullable(),
  test_mode: z.boolean(),
  pay_url: z.string().openapi({ format: 'uri' }),
  contact_payment_id: id().nullable(),
  expires_at: time(),
  paid_at: time().nullable(),
  cancelled_at: time().nullable(),
  created_at: time(),
});

const message = z.object({
  message_id: id(),
  conversation_id: id().nullable(),
  contact_id: id().nullable(),
  channel: z.literal('whatsapp_api'),
  type: openSet('text, image, video, audio, document, location, contacts, button, ...'),
  text: z.string().nullable(),
  media: z.object({ mime_type: z.string(), filename: z.string().nullable(), bytes: z.number().int().nullable() }).optional(),
  wa_message_id: z.string(),
  timestamp: z.string().nullable(),
});

const booking = z.object({
  booking_id: id(),
  contact_id: id().nullable(),
  meeting_type_id: id(),
  meeting_type_name: z.string(),
  host_user_id: id().nullable(),
  host_name: z.string().nullable(),
  previous_host_name: z.string().nullable(),
  start_at: z.string(),
  end_at: z.string(),
  host_timezone: z.string().nullable(),
  invitee_timezone: z.string().nullable(),
  status: openSet('Booking status'),
  location_type: openSet('Location type').nullable(),
  cancelled_by: z.string().nullable(),
  cancel_reason: z.string().nullable(),
  source: openSet('`public_page`, `manual`, `api`, `embed`'),
});

export const EVENT_PAYLOADS = {
  'email.delivered': email(),
  'email.bounced': email({ bounce_type: z.enum(['hard', 'soft', 'block']).optional() }),
  'email.complained': email(),
  'email.failed': email(),
  'email.opened': email({ machine_open: z.boolean() }),
  'email.clicked': email({ url: z.string() }),
  'order.created': order(),
  'order.paid': order(),
  'order.refunded': order(true),
  'order.cancelled': order(),
  'order.fulfilled': order(),
  'payment_request.created': paymentRequest,
  'payment_request.paid': paymentRequest,
  'payment_request.expired': paymentRequest,
  'payment_request.cancelled': paymentRequest,
  'contact.created': contactCreated,
  'contact.updated': contactUpdated,
  'contact.deleted': contactDeleted,
  'contact.consent_changed': consentChanged,
  'message.received': message,
  'deal.created': deal,
  'deal.stage_changed': deal,
  'deal.won': deal,
  'deal.lost': deal,
  'booking.created': booking,
  'booking.rescheduled': booking,
  'booking.cancelled': booking,
  'booking.reassigned': booking,
  'event.attendance.changed': attendance,
  'form.submitted': form,
  'automation.enrollment.started': enrollment,
  'automation.enrollment.ended': enrollment,
  'automation.webhook': automationWebhook,
} satisfies Record<EventType, z.ZodTypeAny>;

/** Types an implemented write emits (docs/events.md "Live families"); the rest are documented ahead of their first emitter. */
export const LIVE_EVENT_TYPES: readonly EventType[] = [
  'email.delivered',
  'email.bounced',
  'email.complained',
  'email.opened',
  'email.clicked',
  'contact.created',
  'contact.updated',
  'contact.consent_changed',
  'contact.deleted',
  'deal.created',
  'deal.stage_changed',
  'deal.won',
  'deal.lost',
  'order.created',
  'order.paid',
  'order.refunded',
  'order.cancelled',
  'event.attendance.changed',
  'form.submitted',
  'payment_request.created',
  'payment_request.paid',
  'payment_request.expired',
  'payment_request.cancelled',
  'booking.created',
  'booking.rescheduled',
  'booking.cancelled',
  'booking.reassigned',
  'message.received',
  'automation.enrollment.started',
  'automation.enrollment.ended',
  'automation.webhook',
];

/** `contact.consent_changed` -> `ContactConsentChangedEvent`. */
export const eventSchemaName = (type: string) =>
  `${type
    .split(/[._]/)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')}Event`;

/** The delivery envelope (docs/webhooks.md) around one type's data, as a named component. */
export const eventEnvelope = (type: EventType) =>
  z
    .object({
      id: id().openapi({ description: 'Event id: stable across retries, shared across endpoints; the dedup key (also the `webhook-id` header)' }),
      type: z.literal(type),
      created_at: time(),
      data: EVENT_PAYLOADS[type],
    })
    .openapi(eventSchemaName(type), {
      description: `\`${type}\` (${EVENT_CATALOG[type].family} family, ${EVENT_CATALOG[type].subscription}${LIVE_EVENT_TYPES.includes(type) ? '' : '; not emitted yet'})`,
    });

const deliveryHeaders = z.object({
  'webhook-id': z.string().openapi({ description: 'The event id' }),
  'webhook-timestamp': z.string().openapi({ description: 'Unix seconds of this attempt' }),
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text shows the literal template a reader follows.
  'webhook-signature': z.string().openapi({ description: '`v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` with the endpoint secret' }),
  Bookmark: z.string().openapi({
    description:
      "At least the state the event's write left (the `Bookmark` answers carry): send it back as a `Bookmark` request header on a `GET` of the workspace to read that state or newer. Not covered by `webhook-signature`.",
  }),
});

/** One OpenAPI 3.1 `webhooks` entry per event type: what an endpoint receives. */
export function registerEventWebhooks(registry: { registerWebhook: (route: never) => void }) {
  for (const type of Object.keys(EVENT_PAYLOADS) as EventType[]) {
    const name = eventSchemaName(type);
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `on${name}`,
      tags: ['Webhook events'],
      summary: `\`${type}\` delivery`,
      description: `A Standard Webhooks POST to every endpoint subscribed to \`${type}\`. Acknowledge with any 2xx within 15 s; anything else is retried.`,
      security: [],
      request: {
        headers: deliveryHeaders,
        body: { required: true, content: { 'application/json': { schema: eventEnvelope(type) } } },
      },
      responses: { 200: { description: 'Any 2xx acknowledges the delivery' } },
    } as never);
  }
}
