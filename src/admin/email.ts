import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { createAudience } from '../modules/audiences/service';
import { audienceFiltersInput } from '../modules/contacts/audience';
import { locateSend, reportFact } from '../modules/emails/events';
import { displayName } from '../modules/emails/header-safety';
import { OUTBOX_CHANNELS, type OutboxChannel } from '../modules/sandbox-outbox/schema';
import { listOutbox } from '../modules/sandbox-outbox/service';
import { createSenderProfile } from '../modules/sender-profiles/service';
import { addGlobalSuppression } from '../modules/suppressions/service';
import { badRequest, httpError } from '../platform/errors';
import { onEveryShard } from '../platform/shards';
import { isUuid } from '../platform/validation';
import { body, idParam, limitParam } from './validate';
import { workspaceData } from './workspace-data';

/** Operator routes of the email domain (docs/operator-api.md): sender profiles, audiences, the sandbox outbox, send events. */
export const emailAdmin = new Hono<AdminEnv>();

const email = z.string().trim().max(320).pipe(z.email());

const senderProfileBody = z
  .object({
    from_name: displayName(z.string().trim().min(1).max(200), 'from_name'),
    from_email: email,
    reply_to: email.nullable().optional(),
    domain_verified: z.boolean(),
    is_default: z.boolean(),
  })
  .strict();

const audienceBody = z.discriminatedUnion('kind', [
  z.object({ name: z.string().trim().min(1).max(200), kind: z.literal('dynamic'), filters: audienceFiltersInput() }).strict(),
  z
    .object({
      name: z.string().trim().min(1).max(200),
      kind: z.literal('static'),
      contact_ids: z.array(z.string().refine(isUuid, { message: 'contact_ids must hold UUIDs' })).max(10_000),
    })
    .strict(),
]);

const sendEventBody = z
  .object({
    type: z.enum(['delivered', 'bounced', 'complained', 'opened', 'clicked']),
    bounce_type: z.enum(['hard', 'soft', 'block']).optional(),
    url: z.string().max(4096).optional(),
    machine: z.boolean().optional(),
  })
  .strict();

const globalSuppressionBody = z.object({ email: z.string().trim().max(255).pipe(z.email()), reason: z.string().trim().min(1).max(100).optional() }).strict();

emailAdmin.post('/workspaces/:ws/sender-profiles', async (c) => {
  const wsId = idParam(c, 'ws');
  const input = await body(c, senderProfileBody);
  const { db } = await workspaceData(c, wsId);
  return c.json(await createSenderProfile(db, wsId, input, c.env.EMAIL_PROVIDER || 'sandbox'), 201);
});

emailAdmin.post('/workspaces/:ws/audiences', async (c) => {
  const wsId = idParam(c, 'ws');
  const input = await body(c, audienceBody);
  const { db } = await workspaceData(c, wsId);
  return c.json(await createAudience(db, wsId, input), 201);
});

emailAdmin.get('/workspaces/:ws/outbox', async (c) => {
  const wsId = idParam(c, 'ws');
  const channel = c.req.query('channel') || undefined;
  if (channel !== undefined && !OUTBOX_CHANNELS.includes(channel as OutboxChannel)) throw badRequest(`Invalid channel: must be one of ${OUTBOX_CHANNELS.join(', ')}`);
  const limit = limitParam(c);
  const { db } = await workspaceData(c, wsId);
  const to = c.req.query('to')?.trim().toLowerCase() || undefined;
  return c.json({ data: await listOutbox(db, wsId, { channel: channel as OutboxChannel | undefined, to, limit }) });
});

/** What a provider webhook would report about a send: the same path as `POST /providers/email/{provider}`. */
emailAdmin.post('/email-sends/:send_id/events', async (c) => {
  const sendId = idParam(c, 'send_id');
  const input = await body(c, sendEventBody);
  const found = await locateSend(c.env, { id: sendId });
  if (!found) throw httpError(404, 'Email send not found');
  const out = await reportFact(c.env, found.db, found.send, { type: input.type, bounceType: input.bounce_type, url: input.url, machine: input.machine }, (p) => c.executionCtx.waitUntil(p));
  return c.json({ send_id: sendId, type: input.type, ...out }, 201);
});

/** The platform-global list: every data database gets the row (the send-time check reads its own). */
emailAdmin.post('/global-suppressions', async (c) => {
  const input = await body(c, globalSuppressionBody);
  const results = await onEveryShard(c.env, (db) => addGlobalSuppression(db, input.email, input.reason ?? 'manual'));
  const failed = Object.entries(results).filter(([, r]) => !r.ok);
  if (failed.length) throw httpError(503, `Not written to ${failed.map(([name]) => name).join(', ')}; retry the request`);
  return c.json({ email: input.email.toLowerCase(), reason: input.reason ?? 'manual' }, 201);
});
