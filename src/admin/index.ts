import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { parseJsonBody } from '../platform/validation';
import { requireAdmin } from './auth';
import { operatorDocument } from './openapi';
import { SharedErrors } from '../platform/shared-errors';
import { LICENSE, RELEASE_VERSION } from '../platform/release';
import { bookingAdmin } from './bookings';
import { contactAdmin } from './contacts';
import { contentAdmin } from './content';
import { paymentRequestAdmin } from './payment-requests';
import { emailAdmin } from './email';
import { globalSuppressionAdmin } from './global-suppressions';
import { newsletterAdmin } from './newsletters';
import { scoringAdmin } from './scoring';
import { workspaceMoveAdmin } from './workspace-moves';
import { shardAdmin } from './shards';
import { sweepAdmin } from './sweeps';
import { webhookAdmin } from './webhooks';
import { whatsappAdmin } from './whatsapp';
import { workspaceAdmin } from './workspaces';

export const adminApp = new Hono<AdminEnv>();

/**
 * The operator API's own OpenAPI document, built from the routes as declared. It needs no token
 * (it holds no data), but like every operator route it is absent (404) without ADMIN_TOKEN.
 */
adminApp.get('/openapi.json', (c) => {
  if (!c.env.ADMIN_TOKEN) throw SharedErrors.unknownRoute({ method: 'GET', path: c.req.path });
  return c.json(operatorDocument(RELEASE_VERSION, LICENSE));
});
adminApp.use('*', requireAdmin, parseJsonBody);
adminApp.route('/', workspaceAdmin);
adminApp.route('/', scoringAdmin);
adminApp.route('/', sweepAdmin);
adminApp.route('/', shardAdmin);
adminApp.route('/', workspaceMoveAdmin);
adminApp.route('/', webhookAdmin);
adminApp.route('/', contactAdmin);
adminApp.route('/', contentAdmin);
adminApp.route('/', paymentRequestAdmin);
adminApp.route('/', bookingAdmin);
adminApp.route('/', whatsappAdmin);
adminApp.route('/', emailAdmin);
adminApp.route('/', globalSuppressionAdmin);
adminApp.route('/', newsletterAdmin);
