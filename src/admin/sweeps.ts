import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { httpError } from '../platform/errors';
import { findSweep, runSweep, sweepNames } from '../sweeps/registry';
import { emptyBody } from './schemas';
import { body } from './validate';

export const sweepAdmin = new Hono<AdminEnv>();

sweepAdmin.post('/sweeps/:name', async (c) => {
  const name = c.req.param('name');
  const sweep = findSweep(name);
  if (!sweep) throw httpError(404, `Unknown sweep "${name.slice(0, 100)}" (available: ${sweepNames().join(', ')})`);
  await body(c, emptyBody);
  return c.json({ name, ...(await runSweep(c.env, sweep)) });
});
