import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Every event is written here in the same batch as the change that caused it.
 * `enqueued_at` is set once the queue accepted the fan-out; a sweep re-sends
 * rows that never got there, so no event is lost when a queue send fails.
 */
export const eventOutbox = sqliteTable(
  'event_outbox',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    type: text('type').notNull(),
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: text('created_at').notNull(),
    enqueuedAt: text('enqueued_at'),
    attempts: integer('attempts').notNull().default(0),
  },
  (t) => [
    index('event_outbox_pending').on(t.enqueuedAt, t.createdAt),
    // `GET /v1/webhook-events`, newest first, with and without a type; and the retention sweep.
    index('event_outbox_workspace_created').on(t.workspaceId, t.createdAt),
    index('event_outbox_workspace_type_created').on(t.workspaceId, t.type, t.createdAt),
    index('event_outbox_created').on(t.createdAt),
  ],
);

/** Every authenticated request, written after its answer (./request-log.ts); the operator reads it per workspace. */
export const requestLog = sqliteTable(
  'request_log',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    apiKeyId: text('api_key_id'),
    /** The answer's `X-Request-Id`; null on rows written before it was kept. */
    requestId: text('request_id'),
    method: text('method').notNull(),
    path: text('path').notNull(),
    status: integer('status').notNull(),
    durationMs: integer('duration_ms').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('request_log_workspace_id').on(t.workspaceId, t.id)],
);

/**
 * A moving workspace's writes on its source shard while it is copied: each row a capture
 * trigger logged in the very transaction of the write (the table and the row's key as a JSON
 * array), replayed onto the target shard in `seq` order (src/platform/d1/workspace-moves/).
 */
export const moveChanges = sqliteTable(
  'move_changes',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    moveId: text('move_id').notNull(),
    tbl: text('tbl').notNull(),
    key: text('key').notNull(),
  },
  (t) => [index('move_changes_move_seq').on(t.moveId, t.seq)],
);

/**
 * A workspace moving off or onto this shard, or gone from it, and what its rows here are:
 * `departing` (served, writes logged), `fenced` (every write refused), `clearing` (the old copy
 * being deleted), `arriving` (a copy being written), `gone` (moved away: kept for good, so the
 * fence refuses a stale route's write; a move back turns it into `arriving`). Triggers that apply rules or count (refunds, list
 * generations) stay still for `arriving` and `clearing` rows: those writes are copies, not events.
 */
export const moveMarks = sqliteTable('move_marks', {
  workspaceId: text('workspace_id').primaryKey(),
  moveId: text('move_id').notNull(),
  role: text('role', { enum: ['departing', 'fenced', 'clearing', 'arriving', 'gone'] }).notNull(),
});
