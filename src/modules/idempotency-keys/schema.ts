import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * `Idempotency-Key` on a `/v1` POST: the first request's claim, then its stored answer. A claim
 * (`state` `executing`) names its owner (`claim`) and lapses at `lease_until`, so a request that
 * died before writing anything does not hold its key for ever. The first batch the request
 * commits moves its own claim to `committed` (the recovery point, ./service.ts): from then on the
 * key is never run again, and a claim found `committed` past its lease means the request was
 * carried out and its answer lost. An answer (`done`) is replayed verbatim for as long as the row
 * is kept (at least 24 hours, ./sweep.ts).
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    workspaceId: text('workspace_id').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the method, the path and the body as parsed JSON (keys sorted). */
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: ['executing', 'committed', 'done'] }).notNull(),
    claim: text('claim').notNull(),
    leaseUntil: text('lease_until').notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    responseType: text('response_type'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.key] }), index('idempotency_keys_created').on(t.createdAt)],
);
