import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../../platform/db';
import { sandboxOutbox, type OutboxChannel } from './schema';

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
