import { z } from '@hono/zod-openapi';
import { Hono, type Context } from 'hono';
import type { AdminEnv } from '../../env';
import { EmailErrors } from './errors';
import { answer, frameworkError, pathParams, providerEventBody, publicEntry, type PublicRegistry } from '../../platform/public-docs';
import { withWriteFloors } from '../../platform/d1/floors';
import { workspaceDb } from '../../platform/d1/shards';
import { emailProviderNamed, InvalidProviderSignature } from '../../providers/email';
import { findSend, locateSend, reportFact, type DeliveryFact } from './delivery-facts';
import { isMachineOpen, locationOf, PIXEL_GIF, verifyToken, type TrackingPayload } from './tracking';

/**
 * Open pixels and click redirects under `/t/` (no key: they are opened from
 * mail clients). A token that does not verify answers 404, never a redirect.
 * The fact is recorded after the answer, so a redirect never waits on it.
 */
export const trackingApp = new Hono<AdminEnv>();

function recordLater(c: Context<AdminEnv>, payload: TrackingPayload, fact: DeliveryFact) {
  // After the answer: a unit of work of its own, so the fact still raises the workspace's floor.
  const work = () =>
    withWriteFloors(c.env, async (env) => {
      const db = await workspaceDb(env, payload.w);
      const send = db ? await findSend(db, payload.w, payload.s) : null;
      if (db && send) await reportFact(env, db, send, fact, (p) => c.executionCtx.waitUntil(p));
    });
  c.executionCtx.waitUntil(work().catch((err) => console.error('tracking fact not recorded', err)));
}

trackingApp.get('/o/:token', async (c) => {
  const payload = await verifyToken(c.env.TRACKING_SECRET, c.req.param('token'));
  if (!payload || payload.u !== undefined) throw EmailErrors.unknownLink();
  recordLater(c, payload, { type: 'opened', machine: isMachineOpen(c.req.header('user-agent')) });
  return c.body(PIXEL_GIF, 200, { 'content-type': 'image/gif', 'cache-control': 'no-store, max-age=0' });
});

trackingApp.get('/c/:token', async (c) => {
  const payload = await verifyToken(c.env.TRACKING_SECRET, c.req.param('token'));
  if (!payload || typeof payload.u !== 'string') throw EmailErrors.unknownLink();
  recordLater(c, payload, { type: 'clicked', url: payload.u });
  return new Response(null, { status: 302, headers: { location: locationOf(payload.u), 'cache-control': 'no-store' } });
});

/**
 * `POST /providers/email/{provider}`: a real provider's delivery and engagement
 * webhooks, verified its own way (401 otherwise), feeding the same path as the
 * operator email-send events route. Reports about unknown messages are skipped.
 */
export const emailProviderApp = new Hono<AdminEnv>();

emailProviderApp.post('/:provider', async (c) => {
  const provider = emailProviderNamed(c.req.param('provider'));
  if (!provider) throw EmailErrors.unknownProvider({ name: c.req.param('provider').slice(0, 50) });
  const raw = await c.req.text();
  let reports: Awaited<ReturnType<typeof provider.parseWebhook>>;
  try {
    reports = await provider.parseWebhook(c.env, c.req.raw.headers, raw);
  } catch (err) {
    if (err instanceof InvalidProviderSignature) throw EmailErrors.invalidSignature({ reason: err.message });
    throw err;
  }
  let recorded = 0;
  for (const report of reports) {
    const found = await locateSend(c.env, { providerMessageId: report.providerMessageId, workspaceId: report.workspaceId });
    if (!found) continue;
    const { providerMessageId: _id, workspaceId: _ws, ...fact } = report;
    if ((await reportFact(c.env, found.db, found.send, fact, (p) => c.executionCtx.waitUntil(p))).recorded) recorded++;
  }
  return c.json({ received: reports.length, recorded });
});

/** Documents the tracking links and the provider webhook in the OpenAPI document, as what they are. */
export function registerEmailPublicDocs(registry: PublicRegistry) {
  const token = pathParams({ token: 'The signed token of the link (never guessable; an altered token is 404)' });
  registry.registerPath({
    ...publicEntry,
    method: 'get',
    path: '/t/o/{token}',
    operationId: 'trackEmailOpen',
    summary: 'Open-tracking pixel (in sent HTML)',
    description:
      'Not an API route: the 1x1 pixel a tracked email carries (`tracking.opens`). ' +
      'Records the first open of the send (`email.opened`, `machine_open` for known scanners and prefetchers) after answering.',
    request: { params: token },
    responses: {
      200: answer('A 1x1 transparent GIF', { content: { 'image/gif': { schema: z.string().openapi({ format: 'binary' }) } } }),
      404: frameworkError('Unknown or altered token'),
    },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'get',
    path: '/t/c/{token}',
    operationId: 'trackEmailClick',
    summary: 'Click-tracking redirect (in sent HTML)',
    description:
      'Not an API route: a wrapped link of a tracked email (`tracking.clicks`). ' +
      'Redirects (302) to the original URL (characters outside printable ASCII percent-encoded as UTF-8) and records the first click ' +
      '(`email.clicked`); never redirects anywhere else.',
    request: { params: token },
    responses: { 302: answer('To the original URL'), 404: frameworkError('Unknown or altered token') },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'post',
    path: '/providers/email/{provider}',
    operationId: 'receiveEmailProviderWebhook',
    summary: 'Email provider webhook (called by the provider)',
    description:
      'Not for API clients: `resend` posts delivery and engagement events here, verified with its Svix signature (`svix-id`, `svix-timestamp`, ' +
      '`svix-signature`, secret `RESEND_WEBHOOK_SECRET`). Bounces and complaints add suppressions; `email.*` events fire once per send and type. ' +
      'Events about unknown messages are skipped.',
    request: {
      params: pathParams({ provider: '`resend`' }),
      body: providerEventBody({ type: 'email.delivered', data: { email_id: '4ef9a417-02e9-4d39-ad75-9611e0fcc33c' } }),
    },
    responses: {
      200: answer('Received', { content: { 'application/json': { schema: z.object({ received: z.number().int(), recorded: z.number().int() }) } } }),
      401: frameworkError('Bad or missing signature: nothing recorded'),
      404: frameworkError('Unknown provider'),
    },
  } as never);
}
