import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { runSweep } from '../sweeps/runner';
import { wiring } from '../wiring';
import { SweepRun } from './answers';
import { adminRoute } from './route';
import { AdminErrors } from './errors';

const sweepNames = () => [...wiring.sweeps.keys()];
const findSweep = (name: string) => wiring.sweeps.get(name);

export const sweepAdmin = new Hono<AdminEnv>();

adminRoute(
  sweepAdmin,
  {
    method: 'post',
    path: '/sweeps/{name}',
    operationId: 'runSweep',
    tag: 'Sandbox and sweeps',
    summary: 'Run one cron sweep now',
    description: `One of ${sweepNames()
      .map((n) => `\`${n}\``)
      .join(', ')}; the cron trigger runs them all every minute.`,
    params: { name: 'The sweep' },
    textParams: ['name'],
    responses: { 200: { description: 'What the sweep did', schema: SweepRun }, 404: { description: '`Unknown sweep "<name>" (available: ...)`' } },
  },
  async (c, read) => {
    const name = c.req.param('name') ?? '';
    const sweep = findSweep(name);
    if (!sweep) throw AdminErrors.unknownSweep({ name: name.slice(0, 100), available: sweepNames().join(', ') });
    await read();
    return c.json({ name, ...(await runSweep(c.env, sweep)) });
  },
);
