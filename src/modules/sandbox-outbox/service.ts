import { and, desc, eq } from 'drizzle-orm';
import { nowIso, type Db } from '../../platform/db';
import { uuidv7 } from '../../platform/ids';
import { sandboxOutbox, type OutboxChannel } from './schema';

type OutboxEntry = { workspaceId: string; channel: OutboxChannel; to: string; from?: string | null; text?: string | null; body?: Record<string, unknown> | null };

/** Records one accepted send of a sandbox provider that has no idempotency key of its own (WhatsApp). */
export async function recordOutbox(db: Db, entry: OutboxEntry): Promise<string> {
  const id = uuidv7();
  await db.insert(sandboxOutbox).values({
    id,
    workspace_id: entry.workspaceId,
    channel: entry.channel,
    to: entry.to,
    from: entry.from ?? null,
    text: entry.text ?? null,
    body: entry.body ?? null,
    created_at: nowIso(),
  });
  return id;
}

/** What the sandbox providers accepted for a workspace, newest first (operator outbox route). */
export async function listOutbox(db: Db, workspaceId: string, filter: { channel?: OutboxChannel; to?: string; limit: number }) {
  const rows = await db
    .select()
    .from(sandboxOutbox)
    .where(and(eq(sandboxOutbox.workspace_id, workspaceId), filter.channel ? eq(sandboxOutbox.channel, filter.channel) : undefined, filter.to ? eq(sandboxOutbox.to, filter.to) : undefined))
    .orderBy(desc(sandboxOutbox.created_at), desc(sandboxOutbox.id))
    .limit(filter.limit);
  return rows.map((r) => ({ id: r.id, channel: r.channel, to: r.to, from: r.from, subject: r.subject, html: r.html, text: r.text, headers: r.headers, body: r.body, created_at: r.created_at }));
}
