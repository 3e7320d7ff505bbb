import { and, desc, eq, sql } from 'drizzle-orm';
import { nowIso, type Db, type Statement } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { preparedInsert, preparedSql } from '../../platform/d1/prepared';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { readOf } from '../../platform/d1/typed-read';
import { sandboxOutbox, type OutboxChannel } from './schema';

type OutboxEntry = {
  workspaceId: string;
  channel: OutboxChannel;
  to: string;
  from?: string | null;
  text?: string | null;
  body?: Record<string, unknown> | null;
};

const insertEntry = preparedInsert(sandboxOutbox);

/** One accepted send of a sandbox provider that has no idempotency key of its own (WhatsApp), as a statement of the caller's batch. */
export function outboxEntry(db: Db, entry: OutboxEntry): Statement {
  return insertEntry.in(db, {
    id: uuidv7(),
    workspace_id: entry.workspaceId,
    channel: entry.channel,
    to: entry.to,
    from: entry.from ?? null,
    text: entry.text ?? null,
    body: entry.body ?? null,
    created_at: nowIso(),
  });
}

/** Records several accepted sends without keys in one statement (their rows travel as one JSON parameter). */
export async function recordOutboxEntries(db: Db, entries: OutboxEntry[]): Promise<void> {
  const now = nowIso();
  const rows = entries.map((e) => ({
    id: uuidv7(),
    w: e.workspaceId,
    c: e.channel,
    to: e.to,
    f: e.from ?? null,
    t: e.text ?? null,
    b: e.body ? JSON.stringify(e.body) : null,
  }));
  await rawRun(
    db,
    sql`INSERT INTO ${sandboxOutbox} (id, workspace_id, channel, "to", "from", text, body, created_at)
      SELECT value ->> 'id', value ->> 'w', value ->> 'c', value ->> 'to', value ->> 'f', value ->> 't', value ->> 'b', ${now} FROM json_each(${JSON.stringify(rows)})`,
  );
}

/**
 * Writes keyed email messages (`rows`: a JSON array of `{id, k, to, from, subject, html, text, headers, attachments}`, the last two
 * JSON texts); a key the outbox already holds keeps its first message.
 */
const keyedEmailsGroup = preparedSql(
  'run',
  () => sql`INSERT INTO ${sandboxOutbox} (id, workspace_id, channel, idempotency_key, "to", "from", subject, html, text, headers, body, attachments, created_at)
  SELECT value ->> 'id', ${sql.placeholder('workspace_id')}, 'email', value ->> 'k', value ->> 'to', value ->> 'from', value ->> 'subject', value ->> 'html',
    value ->> 'text', value ->> 'headers', NULL, value ->> 'attachments', ${sql.placeholder('now')}
  FROM json_each(${sql.placeholder('rows')}) WHERE 1
  ON CONFLICT (workspace_id, channel, idempotency_key) DO NOTHING`,
);

export const keyedEmailsInsert = (db: Db, workspaceId: string, rows: string): Statement =>
  keyedEmailsGroup.in(db, { workspace_id: workspaceId, now: nowIso(), rows });

/** For a caller's batch: the message ids the outbox holds for these email keys. */
export const keyedEmailIds = (db: Db, workspaceId: string, keys: string[]) =>
  readOf<{ id: string; idempotency_key: string }[]>(
    rawAll(
      db,
      sql`SELECT id, idempotency_key FROM ${sandboxOutbox} WHERE workspace_id = ${workspaceId} AND channel = 'email'
      AND idempotency_key IN (SELECT value FROM json_each(${JSON.stringify(keys)}))`,
    ),
  );

/** SQL: the message id of an email key, for a statement written in the same batch as the message. */
export const keyedEmailId = (workspaceId: string, key: string) =>
  sql<string>`(SELECT id FROM ${sandboxOutbox} WHERE workspace_id = ${workspaceId} AND channel = 'email' AND idempotency_key = ${key})`;

/** What the sandbox providers accepted for a workspace, newest first (operator outbox route). */
export async function listOutbox(db: Db, workspaceId: string, filter: { channel?: OutboxChannel; to?: string; limit: number }) {
  const rows = await db
    .select()
    .from(sandboxOutbox)
    .where(
      and(
        eq(sandboxOutbox.workspace_id, workspaceId),
        filter.channel ? eq(sandboxOutbox.channel, filter.channel) : undefined,
        filter.to ? eq(sandboxOutbox.to, filter.to) : undefined,
      ),
    )
    .orderBy(desc(sandboxOutbox.created_at), desc(sandboxOutbox.id))
    .limit(filter.limit);
  return rows.map((r) => ({
    id: r.id,
    channel: r.channel,
    to: r.to,
    from: r.from,
    subject: r.subject,
    html: r.html,
    text: r.text,
    headers: r.headers,
    body: r.body,
    attachments: r.attachments ?? [],
    created_at: r.created_at,
  }));
}
