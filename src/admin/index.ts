import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { parseJsonBody } from '../platform/validation';
import { requireAdmin } from './auth';
import { contactAdmin } from './contacts';
import { emailAdmin } from './email';
import { sweepAdmin } from './sweeps';
import { webhookAdmin } from './webhooks';
import { workspaceAdmin } from './workspaces';

export const adminApp = new Hono<AdminEnv>();
adminApp.use('*', requireAdmin, parseJsonBody);
adminApp.route('/', workspaceAdmin);
adminApp.route('/', sweepAdmin);
adminApp.route('/', webhookAdmin);
adminApp.route('/', contactAdmin);
adminApp.route('/', emailAdmin);
