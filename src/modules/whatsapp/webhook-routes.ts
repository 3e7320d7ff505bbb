import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../../env';
import { WhatsAppErrors } from './errors';
import { publishCommitted } from '../../platform/outbox';
import { signalsCommitted } from '../../platform/signals';
import { answer, frameworkError, providerEventBody, publicEntry, type PublicRegistry } from '../../platform/public-docs';
import { handleNotification, verifyMetaSignature } from './inbound';

/**
 * Meta's WhatsApp Cloud API webhook (docs/whatsapp.md "Pointing Meta at the
 * service"): the GET verification handshake and the signed POST notifications.
 * Public routes: the provider's own signature is the authentication.
 */
export const whatsappWebhook = new Hono<AdminEnv>();

whatsappWebhook.get('/webhook', (c) => {
  const expected = c.env.WHATSAPP_VERIFY_TOKEN;
  const token = c.req.query('hub.verify_token');
  const challenge = c.req.query('hub.challenge') ?? '';
  if (!expected || token !== expected || c.req.query('hub.mode') !== 'subscribe') throw WhatsAppErrors.verificationMismatch();
  return c.text(challenge, 200);
});

whatsappWebhook.post('/webhook', async (c) => {
  const raw = await c.req.arrayBuffer();
  if (!(await verifyMetaSignature(c.env.WHATSAPP_APP_SECRET, raw, c.req.header('x-hub-signature-256')))) {
    throw WhatsAppErrors.invalidSignature();
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    throw WhatsAppErrors.bodyNotJson();
  }
  const summary = await handleNotification(c.env, payload, (ctx) => {
    if (ctx.events.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, ctx.db, ctx.events.committed));
    if (ctx.events.signalled.size) c.executionCtx.waitUntil(signalsCommitted(c.env, ctx.events.signalled));
  });
  return c.json({ received: true, ...summary }, 200);
});

/** Documents Meta's webhook routes in the OpenAPI document, as what they are. */
export function registerWhatsAppWebhookDocs(registry: PublicRegistry) {
  registry.registerPath({
    ...publicEntry,
    method: 'get',
    path: '/providers/whatsapp/webhook',
    operationId: 'verifyWhatsAppWebhook',
    summary: "Meta's webhook verification handshake",
    description:
      'Not for API clients: Meta calls it once when the webhook is configured. ' +
      'With `hub.mode=subscribe` and the right `hub.verify_token` (`WHATSAPP_VERIFY_TOKEN`) it echoes `hub.challenge` as text; otherwise 403.',
    request: {
      query: z.object({
        'hub.mode': z.string().optional().openapi({ example: 'subscribe' }),
        'hub.verify_token': z.string().optional(),
        'hub.challenge': z.string().optional().openapi({ example: '1158201444' }),
      }),
    },
    responses: {
      200: answer('The challenge, verbatim', { content: { 'text/plain': { schema: z.string() } } }),
      403: frameworkError('Verification token mismatch'),
    },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'post',
    path: '/providers/whatsapp/webhook',
    operationId: 'receiveWhatsAppWebhook',
    summary: 'WhatsApp Cloud API notifications (called by Meta)',
    description:
      'Not for API clients: inbound messages and status updates, verified by `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with ' +
      '`WHATSAPP_APP_SECRET`). The workspace is found by `metadata.phone_number_id`; ' +
      'each inbound message fires `message.received` once per provider message id. ' +
      'A valid signed payload always answers 200 so Meta stops retrying.',
    request: {
      headers: z.object({ 'x-hub-signature-256': z.string().optional().openapi({ description: '`sha256=<hex>`' }) }),
      body: providerEventBody({
        object: 'whatsapp_business_account',
        entry: [{ id: 'WABA_ID', changes: [{ field: 'messages', value: { metadata: { phone_number_id: '1234567890' } } }] }],
      }),
    },
    responses: {
      200: answer('Received', { content: { 'application/json': { schema: z.object({ received: z.literal(true) }).passthrough() } } }),
      400: frameworkError('Body is not valid JSON'),
      401: frameworkError('Invalid or missing X-Hub-Signature-256: nothing recorded'),
    },
  } as never);
}
