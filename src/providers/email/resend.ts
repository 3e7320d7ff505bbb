import { Webhook } from 'standardwebhooks';
import type { Bindings } from '../../env';
import { sha256Hex } from '../../platform/ids';
import {
  type BatchOutcome,
  type BounceType,
  type DeliveryType,
  type EmailProvider,
  InvalidProviderSignature,
  type OutgoingEmail,
  type ProviderReport,
  ProviderRejected,
} from './types';

export const RESEND_API = 'https://api.resend.com';

/**
 * Resend's webhook types this service turns into delivery facts; the rest (sent, delivery_delayed, ...) are skipped.
 * A Map: a type named like an inherited object property (`constructor`, `__proto__`) is unknown, like any other.
 */
const TYPES = new Map<unknown, DeliveryType>([
  ['email.delivered', 'delivered'],
  ['email.bounced', 'bounced'],
  ['email.complained', 'complained'],
  ['email.opened', 'opened'],
  ['email.clicked', 'clicked'],
]);

/** Resend reports `Permanent`, `Transient` or `Undetermined` bounces; a suppression follows only a hard one. */
function bounceType(raw: unknown): BounceType | undefined {
  const text = typeof raw === 'string' ? raw.toLowerCase() : '';
  if (text === 'permanent' || text === 'hard') return 'hard';
  if (text === 'transient' || text === 'soft') return 'soft';
  if (text === 'block' || text === 'blocked') return 'block';
  return undefined;
}

/** Tags come as `[{name, value}]` (or, in older payloads, an object). */
function tag(tags: unknown, name: string): string | undefined {
  if (Array.isArray(tags)) {
    const found = tags.find((t) => t && typeof t === 'object' && (t as { name?: unknown }).name === name) as { value?: unknown } | undefined;
    return typeof found?.value === 'string' ? found.value : undefined;
  }
  if (tags && typeof tags === 'object') {
    const value = (tags as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

type ResendError = { message?: string; name?: string };

/**
 * Resend over its REST API. Sends carry our idempotency key in Resend's own
 * `Idempotency-Key` header, so a retry of the same send (crash recovery) is
 * accepted once by Resend too, and `tags` name the workspace and send so
 * webhooks find their way back. Webhooks are signed with Svix (the Standard
 * Webhooks scheme under `svix-*` header names), verified with the maintained
 * `standardwebhooks` library and the `RESEND_WEBHOOK_SECRET`.
 */
/** One message in Resend's request shape; `tags` name the workspace and send so webhooks find their way back. */
const resendPayload = (message: OutgoingEmail) => ({
  from: message.from,
  to: [message.to],
  subject: message.subject,
  html: message.html,
  text: message.text,
  ...(message.replyTo ? { reply_to: message.replyTo } : {}),
  ...(Object.keys(message.headers).length ? { headers: message.headers } : {}),
  // Resend's wire shape: `content` is the file's bytes in base64.
  ...(message.attachments?.length
    ? { attachments: message.attachments.map((a) => ({ filename: a.filename, content: a.content_base64, content_type: a.content_type })) }
    : {}),
  tags: [
    { name: 'workspace_id', value: message.workspaceId },
    { name: 'send_id', value: message.sendId },
  ],
});

/**
 * Resend over its REST API. Sends carry our idempotency key in Resend's own
 * `Idempotency-Key` header, so a retry of the same send (crash recovery) is
 * accepted once by Resend too. Bulk sends go to `/emails/batch` (up to 100 per
 * call) in permissive validation mode, so one refused message never holds back
 * the others. Webhooks are signed with Svix (the Standard Webhooks scheme
 * under `svix-*` header names), verified with the maintained
 * `standardwebhooks` library and the `RESEND_WEBHOOK_SECRET`.
 */
export function resendEmailProvider(fetcher: typeof fetch = (input, init) => fetch(input, init)): EmailProvider {
  async function post<T>(env: Bindings, path: string, body: unknown, headers: Record<string, string>): Promise<T> {
    const apiKey = env.RESEND_API_KEY;
    if (!apiKey) throw new ProviderRejected('The Resend provider is not configured (RESEND_API_KEY is unset)');
    let res: Response;
    try {
      res = await fetcher(`${RESEND_API}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    } catch (err) {
      throw new ProviderRejected(`Resend could not be reached: ${err instanceof Error ? err.message : String(err)}`);
    }
    const answer = (await res.json().catch(() => ({}))) as T & ResendError;
    if (!res.ok) {
      const what = answer.message ?? answer.name ?? `HTTP ${res.status}`;
      throw new ProviderRejected(`Resend refused the ${path === '/emails' ? 'message' : 'batch'} (${res.status}): ${String(what).slice(0, 300)}`);
    }
    return answer;
  }

  return {
    name: 'resend',
    async send({ env }, message, idempotencyKey) {
      const body = await post<{ id?: unknown }>(env, '/emails', resendPayload(message), { 'idempotency-key': idempotencyKey });
      if (typeof body.id !== 'string') throw new ProviderRejected('Resend refused the message (200): no message id in its answer');
      return { messageId: body.id };
    },

    async sendBatch({ env }, messages) {
      // One key for the whole call, derived from the messages' own keys, so a retried batch is accepted once.
      const batchKey = `batch:${await sha256Hex(messages.map((m) => m.idempotencyKey).join('\n'))}`;
      const body = await post<{ data?: { id?: unknown }[]; errors?: { index?: unknown; message?: unknown }[] }>(
        env,
        '/emails/batch',
        messages.map((m) => resendPayload(m.message)),
        { 'idempotency-key': batchKey, 'x-batch-validation': 'permissive' },
      );
      const refused = new Map((body.errors ?? []).map((e) => [Number(e.index), String(e.message ?? 'refused').slice(0, 300)]));
      // `data` lists the accepted messages in request order, skipping the refused ones.
      const accepted = (body.data ?? []).map((d) => d.id);
      return messages.map((_, i): BatchOutcome => {
        if (refused.has(i)) return { rejected: `Resend refused the message: ${refused.get(i)}` };
        const id = accepted.shift();
        return typeof id === 'string' ? { messageId: id } : { rejected: 'Resend answered no message id for this message' };
      });
    },

    async parseWebhook(env: Bindings, headers: Headers, rawBody: string): Promise<ProviderReport[]> {
      const secret = env.RESEND_WEBHOOK_SECRET;
      if (!secret) throw new InvalidProviderSignature('RESEND_WEBHOOK_SECRET is not configured');
      let payload: { type?: unknown; data?: Record<string, unknown> };
      try {
        payload = new Webhook(secret).verify(rawBody, {
          'webhook-id': headers.get('svix-id') ?? '',
          'webhook-timestamp': headers.get('svix-timestamp') ?? '',
          'webhook-signature': headers.get('svix-signature') ?? '',
        }) as typeof payload;
      } catch {
        throw new InvalidProviderSignature('Invalid webhook signature');
      }
      const type = TYPES.get(payload.type);
      const data = payload.data ?? {};
      if (!type || typeof data.email_id !== 'string') return [];
      const bounce = (data.bounce ?? {}) as { type?: unknown; message?: unknown };
      const click = (data.click ?? {}) as { link?: unknown };
      return [
        {
          providerMessageId: data.email_id,
          workspaceId: tag(data.tags, 'workspace_id'),
          type,
          ...(type === 'bounced' ? { bounceType: bounceType(bounce.type) } : {}),
          ...(type === 'bounced' && typeof bounce.message === 'string' ? { reason: bounce.message.slice(0, 500) } : {}),
          ...(type === 'clicked' ? { url: typeof click.link === 'string' ? click.link : '' } : {}),
          ...(type === 'opened' ? { machine: false } : {}),
        },
      ];
    },
  };
}
