import { Hono } from 'hono';
import type { AdminEnv } from '../../env';
import { httpError } from '../../platform/errors';
import { publishCommitted } from '../../platform/events';
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
  if (!expected || token !== expected || c.req.query('hub.mode') !== 'subscribe') throw httpError(403, 'Verification token mismatch');
  return c.text(challenge, 200);
});

whatsappWebhook.post('/webhook', async (c) => {
  const raw = await c.req.arrayBuffer();
  if (!(await verifyMetaSignature(c.env.WHATSAPP_APP_SECRET, raw, c.req.header('x-hub-signature-256')))) {
    throw httpError(401, 'Invalid or missing X-Hub-Signature-256');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    throw httpError(400, 'Body is not valid JSON');
  }
  const summary = await handleNotification(c.env, payload, (ctx) => {
    if (ctx.events.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, ctx.db, ctx.events.committed));
  });
  return c.json({ received: true, ...summary }, 200);
});
