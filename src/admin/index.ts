import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { requireAdmin } from './auth';
import { sweepAdmin } from './sweeps';
import { webhookAdmin } from './webhooks';
import { workspaceAdmin } from './workspaces';

export const adminApp = new Hono<AppEnv>();
adminApp.use('*', requireAdmin);
adminApp.route('/', workspaceAdmin);
adminApp.route('/', sweepAdmin);
adminApp.route('/', webhookAdmin);
