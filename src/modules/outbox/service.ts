import { and, desc, eq } from 'drizzle-orm';
import { nowIso, type Db } from '../../platform/db';
import { uuidv7 } from '../../platform/ids';
import { sandboxOutbox, type OutboxRow } from './schema';

export type OutboxEntry = Omit<OutboxRow, 'id' | 'createdAt' | 'from' | 'subject' | 'html' | 'text' | 'headers' | 'body'> &
  Partial<Pick<OutboxRow, 'from' | 'subject' | 'html' | 'text' | 'headers' | 'body'>>;

/** Records one accepted send of a sandbox provider. */
export async function recordOutbox(db: Db, entry: OutboxEntry): Promise<string> {
  const id = uuidv7();
  await db.insert(sandboxOutbox).values({ from: null, subject: null, html: null, text: null, headers: null, body: null, ...entry, id, createdAt: nowIso() });
  return id;
}

/** The operator's view of the outbox, newest first. */
export async function listOutbox(db: Db, workspaceId: string, opts: { channel?: 'email' | 'whatsapp'; to?: string; limit: number }) {
  const conditions = [eq(sandboxOutbox.workspaceId, workspaceId)];
  if (opts.channel) conditions.push(eq(sandboxOutbox.channel, opts.channel));
  if (opts.to) conditions.push(eq(sandboxOutbox.to, opts.to));
  const rows = await db
    .select()
    .from(sandboxOutbox)
    .where(and(...conditions))
    .orderBy(desc(sandboxOutbox.createdAt), desc(sandboxOutbox.id))
    .limit(opts.limit);
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
    created_at: r.createdAt,
  }));
}
