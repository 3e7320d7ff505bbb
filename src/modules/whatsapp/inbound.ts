import { z } from '@hono/zod-openapi';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { nowIso, runBatch, type Statement } from '../../platform/d1/db';
import { runOperation } from '../../platform/d1/operation';
import { uniqueOn } from '../../platform/d1/constraints';
import { ApiError } from '../../platform/errors';
import { uuidv7 } from '../../platform/ids';
import { toE164 } from '../../platform/phone';
import { controlDb } from '../../platform/d1/shards';
import { identityTaken, planUpsert } from '../contacts';
import { contextFor, findWorkspaceByWhatsAppNumber } from '../workspaces';
import { messages } from './schema';
import { conversationIntoEvent, insertMessage, statusUpdate, upsertConversation } from './inbox';
import { ContactErrors } from '../contacts';

/** `sha256=` + hex HMAC-SHA256 of the raw body with the app secret, checked in constant time (WebCrypto verify). */
export async function verifyMetaSignature(secret: string | undefined, rawBody: ArrayBuffer, header: string | undefined | null): Promise<boolean> {
  if (!secret || !header) return false;
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!m) return false;
  const signature = new Uint8Array(m[1].match(/../g)!.map((h) => parseInt(h, 16)));
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  return crypto.subtle.verify('HMAC', key, signature, rawBody);
}

/*
 * The parts of a Cloud API notification this service reads
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components);
 * everything else passes through unread.
 */
const media = z.object({ mime_type: z.string().optional(), filename: z.string().optional(), caption: z.string().optional() }).passthrough();
const inboundMessage = z
  .object({
    from: z.string(),
    id: z.string().min(1).max(512),
    timestamp: z.string().optional(),
    type: z.string(),
    text: z.object({ body: z.string().optional() }).passthrough().optional(),
    image: media.optional(),
    video: media.optional(),
    audio: media.optional(),
    document: media.optional(),
    sticker: media.optional(),
    button: z.object({ text: z.string().optional() }).passthrough().optional(),
    interactive: z
      .object({
        button_reply: z.object({ title: z.string().optional() }).passthrough().optional(),
        list_reply: z.object({ title: z.string().optional() }).passthrough().optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();
type InboundMessage = z.infer<typeof inboundMessage>;

const statusEntry = z
  .object({
    id: z.string(),
    status: z.string(),
    errors: z.array(z.object({ title: z.string().optional(), message: z.string().optional() }).passthrough()).optional(),
  })
  .passthrough();

const changeValue = z
  .object({
    metadata: z.object({ phone_number_id: z.string() }).passthrough().optional(),
    contacts: z
      .array(z.object({ wa_id: z.string().optional(), profile: z.object({ name: z.string().optional() }).passthrough().optional() }).passthrough())
      .optional(),
    messages: z.array(z.unknown()).optional(),
    statuses: z.array(z.unknown()).optional(),
  })
  .passthrough();

const notification = z
  .object({
    entry: z
      .array(z.object({ changes: z.array(z.object({ field: z.string().optional(), value: z.unknown() }).passthrough()).optional() }).passthrough())
      .optional(),
  })
  .passthrough();

export type InboundSummary = { messages: number; duplicates: number; silent: number; statuses: number; ignored: number };

const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'] as const;

function textOf(m: InboundMessage): string | null {
  if (m.text?.body !== undefined) return m.text.body;
  for (const t of MEDIA_TYPES) if (m[t]?.caption !== undefined) return m[t]!.caption!;
  return m.button?.text ?? m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title ?? null;
}

/** Media metadata only: never the provider's media id, URL or storage key. */
function mediaOf(m: InboundMessage): { mime_type: string; filename: string | null; bytes: number | null } | null {
  for (const t of MEDIA_TYPES) {
    const part = m[t];
    if (m.type === t && part) {
      const bytes = (part as Record<string, unknown>).file_size;
      return {
        mime_type: part.mime_type ?? 'application/octet-stream',
        filename: part.filename ?? null,
        bytes: typeof bytes === 'number' && Number.isInteger(bytes) ? bytes : null,
      };
    }
  }
  return null;
}

const timestampOf = (raw: string | undefined) => {
  const n = Number(raw);
  return raw && Number.isFinite(n) && n > 0 && n < 1e11 ? new Date(n * 1000).toISOString() : null;
};

/** Only the `messages` field carries real inbound traffic; coexistence echoes (`smb_message_echoes`) and history imports (`history`) are not conversations. */
const MESSAGES_FIELD = 'messages';

/**
 * A verified notification: each change is routed to the workspace owning its
 * `metadata.phone_number_id`; inbound messages are stored and announced,
 * status updates move stored outbound messages forward. Unknown numbers and
 * unreadable parts are skipped (the answer is still 200, so Meta stops
 * retrying); only an unexpected failure (the database) propagates.
 */
export async function handleNotification(env: Bindings, payload: unknown, publish: (ctx: ServiceContext) => void): Promise<InboundSummary> {
  const summary: InboundSummary = { messages: 0, duplicates: 0, silent: 0, statuses: 0, ignored: 0 };
  const parsed = notification.safeParse(payload);
  if (!parsed.success) return { ...summary, ignored: 1 };
  for (const entry of parsed.data.entry ?? []) {
    for (const change of entry.changes ?? []) {
      const value = changeValue.safeParse(change.value);
      if (change.field !== MESSAGES_FIELD || !value.success || !value.data.metadata) {
        summary.ignored++;
        continue;
      }
      const ws = await findWorkspaceByWhatsAppNumber(controlDb(env), value.data.metadata.phone_number_id);
      if (!ws) {
        summary.ignored++;
        continue;
      }
      const ctx = contextFor(env, ws);
      const names = new Map((value.data.contacts ?? []).map((c) => [c.wa_id ?? '', c.profile?.name ?? null]));
      for (const raw of value.data.messages ?? []) {
        const m = inboundMessage.safeParse(raw);
        if (!m.success) {
          summary.ignored++;
          continue;
        }
        summary[await recordInbound(ctx, m.data, names.get(m.data.from) ?? null)]++;
      }
      const now = nowIso();
      const updates: Statement[] = [];
      for (const raw of value.data.statuses ?? []) {
        const s = statusEntry.safeParse(raw);
        if (!s.success || !['sent', 'delivered', 'read', 'failed'].includes(s.data.status)) {
          summary.ignored++;
          continue;
        }
        const error = s.data.errors?.[0] ? (s.data.errors[0].message ?? s.data.errors[0].title ?? null) : null;
        updates.push(statusUpdate(ctx.db, ws.id, s.data.id, s.data.status as 'sent', error, now));
        summary.statuses++;
      }
      await runBatch(ctx.db, updates);
      publish(ctx);
    }
  }
  return summary;
}

const wamidTaken = uniqueOn(messages.workspace_id, messages.wamid);

/**
 * One inbound message, stored and announced exactly once per provider message
 * id: the message insert and its `message.received` outbox row are one batch,
 * and the unique (workspace, wamid) index fails a second delivery's batch as a
 * whole, racing or not. Reactions are not stored; a blocked (or blacklisted)
 * sender's message is stored without an event.
 */
async function recordInbound(
  ctx: ServiceContext,
  m: InboundMessage,
  profileName: string | null,
): Promise<'messages' | 'duplicates' | 'silent' | 'ignored'> {
  if (m.type === 'reaction') return 'silent';
  const phone = toE164(`+${m.from.replace(/^\+/, '')}`, ctx.ws.defaultCountry);
  return runOperation(ctx, () => ({
    reads: {
      sender: !!phone && {
        ...planUpsert(ctx, { phone }, { source: 'whatsapp', createOnly: profileName ? { name: profileName.slice(0, 200) } : undefined }),
        lostRace: identityTaken,
      },
    },
    decide: async (read, batch) => {
      const now = nowIso();
      let contact: { id: string; blocked: boolean } | null = null;
      let blocked = false;
      if (phone) {
        try {
          const planned = await read.sender();
          contact = { id: planned.row.id, blocked: planned.row.block_state !== 'none' };
          blocked = contact.blocked;
          batch.join({ writes: planned.writes, events: planned.events });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          // A blacklisted number is a blocked sender; any other refusal leaves the message without a contact.
          blocked = err.entry === ContactErrors.phoneBlacklisted;
        }
      }
      const messageId = uuidv7();
      const text = textOf(m);
      const media = mediaOf(m);
      const providerTimestamp = timestampOf(m.timestamp);
      if (contact) batch.write(upsertConversation(ctx.db, ctx.ws.id, contact.id, uuidv7(), now));
      batch.write(
        insertMessage(ctx.db, {
          id: messageId,
          workspaceId: ctx.ws.id,
          contactId: contact?.id ?? null,
          direction: 'inbound',
          type: m.type,
          status: 'received',
          wamid: m.id,
          text,
          media,
          providerTimestamp,
          now,
        }),
      );
      if (!blocked) {
        batch.emit('message.received', {
          message_id: messageId,
          conversation_id: null,
          contact_id: contact?.id ?? null,
          channel: 'whatsapp_api',
          type: m.type,
          text,
          ...(media ? { media } : {}),
          wa_message_id: m.id,
          timestamp: providerTimestamp,
        });
        if (contact) {
          batch.write(conversationIntoEvent(ctx.db, batch.events.at(-1)!.id, ctx.ws.id, contact.id));
          batch.signal(contact.id, 'message.received');
        }
      }
      return batch.answerWith<'messages' | 'duplicates' | 'silent'>(blocked ? 'silent' : 'messages');
    },
    // A second delivery of the message: the unique provider id fails its batch as a whole.
    answeredOn: [[wamidTaken, () => 'duplicates' as const]],
  }));
}
