import type { Hono, MiddlewareHandler } from 'hono';
import { adminApp } from './admin';
import type { AdminEnv } from './env';
import type { AppEnv } from './platform/app-env';
import { authenticate } from './platform/auth';
import { readYourWrites, recordWriteFloors } from './platform/d1/consistency';
import { serverToServerOnly } from './platform/cors';
import { DOCS_KEYBOARD_PATH, docsContentSecurityPolicy, docsKeyboardScript, docsPage } from './platform/docs-page';
import { renderError } from './platform/errors';
import { refusedByFence } from './platform/d1/workspace-moves/fence';
import { requestIds } from './platform/request-id';
import { SharedErrors } from './platform/shared-errors';
import { home } from './platform/home-page';
import { LICENSE, RELEASE_VERSION } from './platform/release';
import { EventSink, publishCommitted } from './platform/outbox';
import { signalsCommitted } from './platform/signals';
import { logRequests } from './platform/request-log';
import { securityHeaders } from './platform/security-headers';
import { registerSharedComponents } from './platform/openapi';
import { createRouter, parseJsonBody } from './platform/validation';
import { instanceCacheSwitch } from './platform/instance-cache';
import { idempotentPosts } from './modules/idempotency-keys';
import { wiring } from './wiring';

/** Events committed during the request leave after the response (the outbox sweep covers failures). */
const publishEvents: MiddlewareHandler<AppEnv> = async (c, next) => {
  const sink = new EventSink();
  c.set('events', sink);
  await next();
  const pending = sink.pending();
  if (pending.length) c.executionCtx.waitUntil(publishCommitted(c.env, c.var.db, pending));
  if (sink.signalled.size) c.executionCtx.waitUntil(signalsCommitted(c.env, sink.signalled));
};

/** Every `/v1` request passes these, in this order (the bench measures their prefixes). */
export const V1_MIDDLEWARE = [logRequests, authenticate, parseJsonBody, publishEvents, readYourWrites, idempotentPosts] as const;

const API_DESCRIPTION = [
  'Contacts with per-channel consent, deals and pipelines, products, payments, hosted pay-links, orders, transactional email with suppressions, audiences and sender profiles, meeting types and bookings, email campaigns, newsletters with numbered issues, WhatsApp templates, campaigns and inbound messages, and signed outbound webhooks for one workspace, identified by the API key (`Authorization: Bearer wsk_...`). Hosted pages, tracking links and provider webhooks are listed apart, under their own tag.',
  '',
  '**Errors** come in two shapes: the domain envelope `{error: {code, message}}` (consent, products, webhook endpoints, transactional email, suppressions, email campaigns, newsletters and issues, WhatsApp campaign execution) and the framework shape `{statusCode, message, error}` with optional `error_code` (everything else). Request-shape 400s use the framework shape everywhere but the consent and suppression routes, which answer them as `invalid_request` in the domain envelope. Each operation lists its errors. Unknown body properties and non-UUID path ids answer 400.',
  '',
  '**Rate limits**: 100 requests per minute per key, 300 per minute per source IP, `POST /v1/emails` 300 per minute per key; 429 with `Retry-After`. Answers carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`. A source IP that sent 30 invalid keys in a minute is answered 429 for the rest of that minute, whatever its key.',
  '',
  '**Consistency**: where the service runs with D1 read replication on, reads may be served by a nearby read replica, but always see every write the workspace had when the read began, whoever made it (any API key, the operator, hosted pages, provider webhooks, background work); otherwise every request reads the primary. Answers carry a `Bookmark` header (`<D1 bookmark>.<64 hex digits>`); send it back as a `Bookmark` request header on a read to see at least that state (webhook deliveries carry one too). A value this service did not issue for the workspace answers 400.',
  '',
  "**Retries**: every `POST` takes an optional `Idempotency-Key` header (1 to 255 printable ASCII characters, scoped to the workspace, kept at least 24 hours). The first request with a key runs and its answer is kept (not a 5xx, 401 or 429: those leave the key usable); the same method, path and body (JSON compared as values) again gets that answer verbatim with `Idempotent-Replayed: true` and runs nothing; the key with another method, path or body answers 422 `IDEMPOTENCY_KEY_REUSED`; while the first still runs, 409 `IDEMPOTENCY_KEY_IN_USE` with `Retry-After: 1`. A request is never run twice for one key: when the first was carried out but its answer was lost (the service failed between the two), the key answers 409 `IDEMPOTENCY_KEY_ANSWER_LOST` (read the resource to see the outcome). Without the header each route's own idempotency rules apply as documented.",
  '',
  "**Phone numbers** are stored and answered in E.164. A number written without a country code (`(415) 555-0123`) is read in the workspace's default country: `default_country` (ISO 3166 alpha-2), `US` unless the operator set another when creating or updating the workspace; `+` and the country code always win.",
  '',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text shows the literal template a reader follows.
  '**Webhooks** follow Standard Webhooks: headers `webhook-id` (the event id), `webhook-timestamp` (unix seconds) and `webhook-signature` = `v1,` + base64(HMAC-SHA256(base64-decoded secret after `whsec_`, `${id}.${timestamp}.${body}`)). Success is a 2xx within 15 s; failures are retried after about 5 s, 1 min, 5 min, 30 min, 2 h, 6 h and 12 h (8 attempts), then dead-lettered. Redirects are not followed.',
].join('\n');

/** The reference's sections in reading order: contacts first, the pages and provider webhooks around the API last. */
export const TAGS = [
  { name: 'Contacts', description: 'People, found and deduplicated by phone and email; lists with filters, search and sorting' },
  { name: 'Consent', description: "A contact's per-channel consent (email, WhatsApp, SMS) and its ledger" },
  { name: 'Notes', description: 'Notes on a contact' },
  { name: 'Tags', description: 'Labels contacts carry by name' },
  { name: 'Contact groups', description: 'Named groups of contacts' },
  { name: 'Pipelines', description: 'Sales pipelines and their stages' },
  { name: 'Deals', description: 'Deals of a contact, moved through pipeline stages and won or lost' },
  { name: 'Products', description: 'The product catalogue deals, payments and orders name' },
  { name: 'Payments', description: 'One-time payments and payment plans, with a ledger of charges and refunds' },
  { name: 'Payment requests', description: 'Hosted pay-links a contact pays through the payment provider' },
  { name: 'Orders', description: 'Orders with lines, payment and refunds' },
  { name: 'Transactional email', description: 'One email to one recipient, exactly once per idempotency key' },
  { name: 'Suppressions', description: 'Addresses no email goes to' },
  { name: 'Sender profiles', description: 'The From identities email is sent as' },
  { name: 'Audiences', description: 'Saved contact selections campaigns go to' },
  { name: 'Email campaigns', description: 'Broadcast email to an audience, estimated, scheduled and tracked' },
  { name: 'Newsletters', description: 'Newsletters contacts subscribe to' },
  { name: 'Newsletter issues', description: 'Numbered issues of a newsletter, published to its subscribers and its archive' },
  { name: 'WhatsApp templates', description: 'Approved WhatsApp message templates' },
  { name: 'WhatsApp campaigns', description: 'Template messages to many contacts' },
  { name: 'Meeting types', description: 'What can be booked: hosts, hours, durations; open slots and the embed' },
  { name: 'Bookings', description: 'Booked meetings, rescheduled, reassigned or cancelled' },
  {
    name: 'Automations',
    description: 'Versioned flows that enroll contacts on events and run their steps exactly once: waits, branches, sends, updates',
  },
  { name: 'Webhook endpoints', description: 'Where signed events are delivered, what each delivery did, redelivery and a test event' },
  { name: 'Webhook events', description: 'Every event of the last 30 days, as delivered: to recover what an endpoint missed' },
  {
    name: 'Hosted pages and provider webhooks',
    description: 'Not API routes: the pages people open (pay, book, unsubscribe, archive), tracking links and the routes providers call',
  },
] as const;

/** The whole app: every module's routes, pages and docs, as the wiring (./wiring.ts) gathers them; the Worker serves exactly this. */
export function buildApp() {
  const app = createRouter();
  // A write that reached a moving workspace's old shard behind its fence is answered 503 WORKSPACE_MOVING: the client retries it.
  app.onError((err, c) => {
    if (!refusedByFence(err)) return renderError(err, c);
    c.set('fenced', true);
    return renderError(SharedErrors.workspaceMoving(), c);
  });
  app.notFound((c) => {
    c.set('routeMatched', false);
    return renderError(SharedErrors.unknownRoute({ method: c.req.method, path: c.req.path }), c);
  });

  app.use('*', requestIds, instanceCacheSwitch, securityHeaders, serverToServerOnly, recordWriteFloors);

  // Public documentation, registered before the /v1 guard so it needs no key.
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'A workspace API key: `Authorization: Bearer wsk_...`',
  });
  registerSharedComponents(app.openAPIRegistry);
  app.doc31('/v1/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Workspace API',
      version: RELEASE_VERSION,
      license: LICENSE,
      description: API_DESCRIPTION,
    },
    servers: [{ url: '/', description: 'The host serving this document (under `npm start`, the URL it printed)' }],
    security: [{ bearerAuth: [] }],
    tags: [...TAGS],
  });
  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', docsContentSecurityPolicy);
    return c.html(docsPage);
  });
  // The page's files live under `/docs/`, so `/docs/` is typed as often as `/docs`: it goes there, its query kept.
  app.get('/docs/', (c) => c.redirect(`/docs${new URL(c.req.url).search}`, 301));
  // The viewer's files are static assets (wrangler.toml `[assets]`), served before the Worker
  // runs; this route answers the same when a request reaches the Worker anyway.
  app.get(DOCS_KEYBOARD_PATH, (c) => c.body(docsKeyboardScript, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/docs/*', async (c, next) => {
    if (!c.env.ASSETS) return next();
    const res = await c.env.ASSETS.fetch(c.req.raw);
    return res.status === 404 ? next() : new Response(res.body, res);
  });
  app.get('/', home);

  // The session's bookmark is recorded before committed events start their fan-out.
  app.use('/v1/*', ...V1_MIDDLEWARE);
  for (const router of wiring.routes) app.route('/v1', router);
  // Documented after the API's own operations, so a reader meets those first.
  for (const register of wiring.docs) register(app.openAPIRegistry);

  app.route('/admin/v1', adminApp);
  // Public pages, tracking links and provider webhooks: no API key, their own checks (tokens, provider signatures).
  // The list holds routers typed with and without the request's variables; `route` takes either.
  for (const { path, app: routes } of wiring.publicRoutes) app.route(path, routes as Hono<AdminEnv>);
  return app;
}
