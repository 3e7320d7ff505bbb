import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { requireAdmin } from './auth';
import { contactAdmin } from './contacts';
import { sweepAdmin } from './sweeps';
import { workspaceAdmin } from './workspaces';

export const adminApp = new Hono<AppEnv>();
adminApp.use('*', requireAdmin);
adminApp.route('/', workspaceAdmin);
adminApp.route('/', sweepAdmin);
adminApp.route('/', contactAdmin);
