/**
 * Every webhook event type (docs/events.md) with its family and how
 * an endpoint subscribes to it. This table is the single source: `EventSink.emit`
 * only accepts its keys, registration validates against it, and the publisher
 * reads `subscription` to decide what is ever delivered.
 *
 * - `default`: received by endpoints registered without `events`.
 * - `opt-in`: received only when listed explicitly.
 * - `deprecated`: accepted in `events` and echoed, never delivered.
 * - `direct`: never subscribed to; delivered only to the endpoint an automation's `webhook` step names.
 */
export type EventFamily = 'email' | 'order' | 'payment_request' | 'contact' | 'message' | 'deal' | 'booking' | 'attendance' | 'form' | 'automation';
export type Subscription = 'default' | 'opt-in' | 'deprecated' | 'direct';

export const EVENT_CATALOG = {
  'email.delivered': { family: 'email', subscription: 'default' },
  'email.bounced': { family: 'email', subscription: 'default' },
  'email.complained': { family: 'email', subscription: 'default' },
  'email.failed': { family: 'email', subscription: 'deprecated' },
  'email.opened': { family: 'email', subscription: 'opt-in' },
  'email.clicked': { family: 'email', subscription: 'opt-in' },
  'order.created': { family: 'order', subscription: 'opt-in' },
  'order.paid': { family: 'order', subscription: 'opt-in' },
  'order.refunded': { family: 'order', subscription: 'opt-in' },
  'order.cancelled': { family: 'order', subscription: 'opt-in' },
  'order.fulfilled': { family: 'order', subscription: 'opt-in' },
  'payment_request.created': { family: 'payment_request', subscription: 'opt-in' },
  'payment_request.paid': { family: 'payment_request', subscription: 'opt-in' },
  'payment_request.expired': { family: 'payment_request', subscription: 'opt-in' },
  'payment_request.cancelled': { family: 'payment_request', subscription: 'opt-in' },
  'contact.created': { family: 'contact', subscription: 'opt-in' },
  'contact.updated': { family: 'contact', subscription: 'opt-in' },
  'contact.deleted': { family: 'contact', subscription: 'opt-in' },
  'contact.consent_changed': { family: 'contact', subscription: 'opt-in' },
  'message.received': { family: 'message', subscription: 'opt-in' },
  'deal.created': { family: 'deal', subscription: 'opt-in' },
  'deal.stage_changed': { family: 'deal', subscription: 'opt-in' },
  'deal.won': { family: 'deal', subscription: 'opt-in' },
  'deal.lost': { family: 'deal', subscription: 'opt-in' },
  'booking.created': { family: 'booking', subscription: 'opt-in' },
  'booking.rescheduled': { family: 'booking', subscription: 'opt-in' },
  'booking.cancelled': { family: 'booking', subscription: 'opt-in' },
  'booking.reassigned': { family: 'booking', subscription: 'opt-in' },
  'event.attendance.changed': { family: 'attendance', subscription: 'opt-in' },
  'form.submitted': { family: 'form', subscription: 'opt-in' },
  'automation.enrollment.started': { family: 'automation', subscription: 'opt-in' },
  'automation.enrollment.ended': { family: 'automation', subscription: 'opt-in' },
  'automation.webhook': { family: 'automation', subscription: 'direct' },
} as const satisfies Record<string, { family: EventFamily; subscription: Subscription }>;

export type EventType = keyof typeof EVENT_CATALOG;

export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as [EventType, ...EventType[]];

/** What an endpoint may list in `events`: every type but the ones delivered only where an automation names the endpoint. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t) => EVENT_CATALOG[t].subscription !== 'direct') as [EventType, ...EventType[]];

export const isEventType = (value: string): value is EventType => Object.hasOwn(EVENT_CATALOG, value);

/** What an endpoint registered without `events` receives. */
export const DEFAULT_EVENT_TYPES = EVENT_TYPES.filter((t) => EVENT_CATALOG[t].subscription === 'default');

/** An endpoint receives a type only when it listed it and the type is not deprecated. */
export function isDeliveredTo(subscribed: readonly string[], type: string): boolean {
  return (
    isEventType(type) &&
    (EVENT_CATALOG[type].subscription === 'default' || EVENT_CATALOG[type].subscription === 'opt-in') &&
    subscribed.includes(type)
  );
}
