import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * A workspace holds at most 3 endpoints: each takes one of the slots 1..3, and
 * the unique (workspace_id, slot) index makes the database refuse a fourth even
 * when registrations race. Deleting an endpoint removes the row and frees its slot.
 */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    slot: integer('slot').notNull(),
    url: text('url').notNull(),
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    secret: text('secret').notNull(),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('webhook_endpoints_workspace_slot').on(t.workspaceId, t.slot)],
);

export const DELIVERY_STATES = ['pending', 'retrying', 'succeeded', 'dead', 'dropped'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * One row per (event, endpoint): `pending` from the fan-out (or a redelivery) until an attempt
 * ends, then the outcome of the latest attempt. `dead` rows are the dead letters; `dropped` ones
 * belonged to an endpoint deleted while they were still being retried.
 *
 * A `pending` or `retrying` delivery is due at its `next_attempt_at`, a pending one (which has none)
 * since it became pending (`updated_at`). `held_until`/`held_by` is its hold: a queue consumer
 * attempting it, or the outbox sweep that re-sent its message, holds it until then, and while the
 * hold lives no one else attempts or re-sends it (`delivery.ts`, `redrive.ts`).
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    endpointId: text('endpoint_id').notNull(),
    url: text('url').notNull(),
    state: text('state', { enum: DELIVERY_STATES }).notNull(),
    attempts: integer('attempts').notNull(),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    nextAttemptAt: text('next_attempt_at'),
    heldUntil: text('held_until'),
    heldBy: text('held_by'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_endpoint').on(t.eventId, t.endpointId),
    index('webhook_deliveries_workspace_created').on(t.workspaceId, t.createdAt),
    index('webhook_deliveries_endpoint_created').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_created').on(t.createdAt),
    index('webhook_deliveries_endpoint_state_created').on(t.endpointId, t.state, t.createdAt),
    // The deliveries still to make, by when they are due: the outbox sweep's re-drive walks it.
    index('webhook_deliveries_due').on(sql`coalesce(${t.nextAttemptAt}, ${t.updatedAt})`).where(sql`state IN ('pending', 'retrying')`),
  ],
);
