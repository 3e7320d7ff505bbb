import type { MiddlewareHandler } from 'hono';
import { adminApp } from './admin';
import type { AppEnv } from './env';
import { authenticate } from './platform/auth';
import { serverToServerOnly } from './platform/cors';
import { dbFor } from './platform/db';
import { docsPage } from './platform/docs-page';
import { httpError, renderError } from './platform/errors';
import { EventSink, publishCommitted } from './platform/events';
import { logRequests } from './platform/request-log';
import { createRouter, parseJsonBody } from './platform/validation';
import { v1Routers } from './modules/routers';

const withDb: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('db', dbFor(c.env.DB));
  await next();
};

/** Events committed during the request leave after the response (the outbox sweep covers failures). */
const publishEvents: MiddlewareHandler<AppEnv> = async (c, next) => {
  const sink = new EventSink();
  c.set('events', sink);
  await next();
  if (sink.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, sink.committed));
};

export function buildApp() {
  const app = createRouter();
  app.onError(renderError);
  app.notFound((c) => {
    c.set('routeMatched', false);
    return renderError(httpError(404, `Cannot ${c.req.method} ${c.req.path}`), c);
  });

  app.use('*', serverToServerOnly, withDb);

  // Public documentation, registered before the /v1 guard so it needs no key.
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'A workspace API key: `Authorization: Bearer wsk_...`',
  });
  app.doc31('/v1/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Workspace API',
      version: '1.6.0',
      description:
        'Contacts with per-channel consent, deals, products, bookings, payments, orders, email, newsletters, WhatsApp and signed webhooks. Every `/v1` route needs a workspace API key.',
    },
    security: [{ bearerAuth: [] }],
  });
  app.get('/docs', (c) => c.html(docsPage));

  app.use('/v1/*', logRequests, authenticate, parseJsonBody, publishEvents);
  for (const router of v1Routers) app.route('/v1', router);

  app.route('/admin/v1', adminApp);
  return app;
}
