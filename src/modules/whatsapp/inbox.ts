import { and, eq, sql } from 'drizzle-orm';
import type { Db, Statement } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { rawRun } from '../../platform/d1/raw-query';
import { eventOutbox } from '../../platform/schema';
import { conversations, messages, type MessageStatus } from './schema';

export const WHATSAPP_CHANNEL = 'whatsapp';

/**
 * The contact's conversation on a channel, created on first use (one per
 * contact and channel, by unique index); returns its id inside a batch.
 */
export const upsertConversation = (db: Db, workspaceId: string, contactId: string, id: string, now: string) =>
  db
    .insert(conversations)
    .values({
      id,
      workspace_id: workspaceId,
      contact_id: contactId,
      channel: WHATSAPP_CHANNEL,
      last_message_at: now,
      created_at: now,
      updated_at: now,
    })
    .onConflictDoUpdate({
      target: [conversations.workspace_id, conversations.contact_id, conversations.channel],
      set: { last_message_at: sql`max(${conversations.last_message_at}, excluded.last_message_at)`, updated_at: now },
    })
    .returning({ id: conversations.id });

/** The contact's WhatsApp conversation, for the end of the batch that wrote it. */
export const selectConversationOf = (db: Db, workspaceId: string, contactId: string) =>
  db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.workspace_id, workspaceId), eq(conversations.contact_id, contactId), eq(conversations.channel, WHATSAPP_CHANNEL)))
    .limit(1);

/** The contacts' conversations, created on first use or touched, in one statement (a campaign chunk's). */
export const upsertConversations = (db: Db, workspaceId: string, contactIds: string[], now: string) =>
  rawRun(
    db,
    sql`INSERT INTO conversations (id, workspace_id, contact_id, channel, last_message_at, created_at, updated_at)
      SELECT value ->> 'id', ${workspaceId}, value ->> 'c', ${WHATSAPP_CHANNEL}, ${now}, ${now}, ${now} FROM json_each(${JSON.stringify(contactIds.map((c) => ({ id: uuidv7(), c })))}) WHERE 1
      ON CONFLICT (workspace_id, contact_id, channel) DO UPDATE SET last_message_at = max(conversations.last_message_at, excluded.last_message_at), updated_at = ${now}`,
  );

/**
 * A campaign chunk's outbound template messages, `pending`, each in its contact's conversation (written by
 * `upsertConversations` earlier in the same batch): one statement, the rows as one JSON parameter.
 */
export const insertCampaignMessages = (
  db: Db,
  m: { workspaceId: string; templateId: string; campaignId: string; now: string },
  rows: { id: string; contactId: string; text: string }[],
) =>
  rawRun(
    db,
    sql`INSERT INTO messages (id, workspace_id, conversation_id, contact_id, channel, direction, type, status, wamid, template_id, campaign_id, text, media, error, provider_timestamp, created_at, updated_at)
      SELECT value ->> 'id', ${m.workspaceId},
        (SELECT v.id FROM conversations v WHERE v.workspace_id = ${m.workspaceId} AND v.contact_id = value ->> 'c' AND v.channel = ${WHATSAPP_CHANNEL}),
        value ->> 'c', ${WHATSAPP_CHANNEL}, 'outbound', 'template', 'pending', NULL, ${m.templateId}, ${m.campaignId}, value ->> 't', NULL, NULL, NULL, ${m.now}, ${m.now}
      FROM json_each(${JSON.stringify(rows.map((r) => ({ id: r.id, c: r.contactId, t: r.text })))})`,
  );

/** Outcomes of a chunk's outbound messages (`wamid`, or `error`), in one statement probing each message by id. */
export const settleOutboundMany = (
  db: Db,
  workspaceId: string,
  outcomes: { id: string; outcome: { wamid: string } | { error: string } }[],
  now: string,
) =>
  rawRun(
    db,
    sql`WITH settled AS MATERIALIZED (SELECT value ->> 'id' AS id, value ->> 'w' AS wamid, value ->> 'e' AS error FROM json_each(${JSON.stringify(
      outcomes.map(({ id, outcome }) => ('wamid' in outcome ? { id, w: outcome.wamid } : { id, e: outcome.error.slice(0, 1000) })),
    )}))
      UPDATE messages SET status = CASE WHEN settled.wamid IS NULL THEN 'failed' ELSE 'sent' END, wamid = settled.wamid, error = settled.error, updated_at = ${now}
      FROM settled WHERE messages.id = settled.id AND messages.workspace_id = ${workspaceId}`,
  );

export type NewMessage = {
  id: string;
  workspaceId: string;
  contactId: string | null;
  direction: 'inbound' | 'outbound';
  type: string;
  status: MessageStatus;
  wamid: string | null;
  templateId?: string | null;
  text: string | null;
  media?: { mime_type: string; filename: string | null; bytes: number | null } | null;
  providerTimestamp?: string | null;
  now: string;
};

/** Inserts a message into the contact's conversation (looked up in the same batch, after `upsertConversation`). */
export function insertMessage(db: Db, m: NewMessage): Statement {
  const conversation = m.contactId
    ? sql`(SELECT id FROM conversations WHERE workspace_id = ${m.workspaceId} AND contact_id = ${m.contactId} AND channel = ${WHATSAPP_CHANNEL})`
    : sql`NULL`;
  return rawRun(
    db,
    sql`INSERT INTO messages (id, workspace_id, conversation_id, contact_id, channel, direction, type, status, wamid, template_id, campaign_id, text, media, error, provider_timestamp, created_at, updated_at)
      VALUES (${m.id}, ${m.workspaceId}, ${conversation}, ${m.contactId}, ${WHATSAPP_CHANNEL}, ${m.direction}, ${m.type}, ${m.status}, ${m.wamid}, ${m.templateId ?? null}, NULL,
        ${m.text}, ${m.media ? JSON.stringify(m.media) : null}, NULL, ${m.providerTimestamp ?? null}, ${m.now}, ${m.now})`,
  );
}

/** The outcome of handing an outbound message to the provider. */
export const settleOutbound = (db: Db, workspaceId: string, messageId: string, outcome: { wamid: string } | { error: string }, now: string) =>
  db
    .update(messages)
    .set(
      'wamid' in outcome
        ? { status: 'sent', wamid: outcome.wamid, updated_at: now }
        : { status: 'failed', error: outcome.error.slice(0, 1000), updated_at: now },
    )
    .where(and(eq(messages.workspace_id, workspaceId), eq(messages.id, messageId)));

/** Where an outbound status may go: forward only (`read` never falls back to `delivered`); `failed` only before delivery. */
const RANK: Record<string, number> = { pending: 0, sent: 1, delivered: 2, read: 3 };
export function statusUpdate(
  db: Db,
  workspaceId: string,
  wamid: string,
  status: 'sent' | 'delivered' | 'read' | 'failed',
  error: string | null,
  now: string,
) {
  const allowedFrom = status === 'failed' ? ['pending', 'sent'] : Object.keys(RANK).filter((s) => RANK[s] < RANK[status]);
  return db
    .update(messages)
    .set({ status, updated_at: now, ...(error ? { error: error.slice(0, 1000) } : {}) })
    .where(
      and(
        eq(messages.workspace_id, workspaceId),
        eq(messages.wamid, wamid),
        eq(messages.direction, 'outbound'),
        sql`${messages.status} IN (SELECT value FROM json_each(${JSON.stringify(allowedFrom)}))`,
      ),
    );
}

/**
 * Sets an outbox event's `data.conversation_id` to the contact's conversation
 * as the same batch left it (created or found there, so its id is not known
 * before the batch runs).
 */
export const conversationIntoEvent = (db: Db, eventId: string, workspaceId: string, contactId: string): Statement =>
  rawRun(
    db,
    sql`UPDATE ${eventOutbox} SET data = json_set(data, '$.conversation_id',
      (SELECT id FROM conversations WHERE workspace_id = ${workspaceId} AND contact_id = ${contactId} AND channel = ${WHATSAPP_CHANNEL}))
      WHERE id = ${eventId}`,
  );
