import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import type { ServiceContext } from '../../platform/context';

export const serviceContext = (c: Context<AppEnv>): ServiceContext => ({ db: c.var.db, ws: c.var.workspace, events: c.var.events });
