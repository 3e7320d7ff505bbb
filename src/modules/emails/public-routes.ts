import { Hono, type Context } from 'hono';
import type { AdminEnv } from '../../env';
import { httpError } from '../../platform/errors';
import { workspaceDb } from '../../platform/shards';
import { emailProviderNamed, InvalidProviderSignature } from '../../providers/email';
import { findSend, locateSend, reportFact, type DeliveryFact } from './events';
import { isMachineOpen, PIXEL_GIF, verifyToken, type TrackingPayload } from './tracking';

/**
 * Open pixels and click redirects under `/t/` (no key: they are opened from
 * mail clients). A token that does not verify answers 404, never a redirect.
 * The fact is recorded after the answer, so a redirect never waits on it.
 */
export const trackingApp = new Hono<AdminEnv>();

const unknownLink = () => httpError(404, 'Unknown tracking link');

function recordLater(c: Context<AdminEnv>, payload: TrackingPayload, fact: DeliveryFact) {
  const work = async () => {
    const db = await workspaceDb(c.env, payload.w);
    const send = db ? await findSend(db, payload.w, payload.s) : null;
    if (db && send) await reportFact(c.env, db, send, fact, (p) => c.executionCtx.waitUntil(p));
  };
  c.executionCtx.waitUntil(work().catch((err) => console.error('tracking fact not recorded', err)));
}

trackingApp.get('/o/:token', async (c) => {
  const payload = await verifyToken(c.env.TRACKING_SECRET, c.req.param('token'));
  if (!payload || payload.u !== undefined) throw unknownLink();
  recordLater(c, payload, { type: 'opened', machine: isMachineOpen(c.req.header('user-agent')) });
  return c.body(PIXEL_GIF, 200, { 'content-type': 'image/gif', 'cache-control': 'no-store, max-age=0' });
});

trackingApp.get('/c/:token', async (c) => {
  const payload = await verifyToken(c.env.TRACKING_SECRET, c.req.param('token'));
  if (!payload || typeof payload.u !== 'string') throw unknownLink();
  recordLater(c, payload, { type: 'clicked', url: payload.u });
  // The original URL, verbatim (it was signed as written).
  return new Response(null, { status: 302, headers: { location: payload.u, 'cache-control': 'no-store' } });
});

/**
 * `POST /providers/email/{provider}`: a real provider's delivery and engagement
 * webhooks, verified its own way (401 otherwise), feeding the same path as the
 * operator email-send events route. Reports about unknown messages are skipped.
 */
export const emailProviderApp = new Hono<AdminEnv>();

emailProviderApp.post('/:provider', async (c) => {
  const provider = emailProviderNamed(c.req.param('provider'));
  if (!provider) throw httpError(404, `Unknown email provider "${c.req.param('provider').slice(0, 50)}"`);
  const raw = await c.req.text();
  let reports;
  try {
    reports = await provider.parseWebhook(c.env, c.req.raw.headers, raw);
  } catch (err) {
    if (err instanceof InvalidProviderSignature) throw httpError(401, err.message);
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
