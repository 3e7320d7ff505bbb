import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { HalfLifeInput, putScoring, readScoring, RulesInput } from '../modules/scoring';
import { ScoringConfiguration } from './answers';
import { adminRoute } from './route';
import { idParam } from './validate';

/** A workspace's lead-scoring configuration (docs/operator-api.md, docs/scoring.md). */
export const scoringAdmin = new Hono<AdminEnv>();

const scoringPut = z
  .object({
    enabled: z.boolean(),
    rules: RulesInput.optional(),
    half_life_days: HalfLifeInput.optional(),
  })
  .strict();

const WS = { ws: 'The workspace id' };
const answers = { 200: { description: 'The configuration', schema: ScoringConfiguration }, 404: { description: '`Workspace not found`' } };

adminRoute(
  scoringAdmin,
  {
    method: 'get',
    path: '/workspaces/{ws}/scoring',
    operationId: 'getScoring',
    tag: 'Workspaces',
    summary: "Read a workspace's lead-scoring configuration",
    description: "`enabled` is the workspace's `lead_scoring` flag; rules never set read as the default rules.",
    params: WS,
    responses: answers,
  },
  async (c) => c.json(await readScoring(c.env, idParam(c, 'ws'))),
);

adminRoute(
  scoringAdmin,
  {
    method: 'put',
    path: '/workspaces/{ws}/scoring',
    operationId: 'setScoring',
    tag: 'Workspaces',
    summary: "Set a workspace's lead-scoring configuration",
    description:
      "Sets the workspace's `lead_scoring` flag (`enabled`) and what a score is made of. Omitted `rules` or `half_life_days` keep the stored ones (the defaults when none are stored). Switching on, or changing the rules or the half-life while on, rescores every contact of the workspace in the background (`rescoring` is true until done).",
    params: WS,
    body: {
      schema: scoringPut,
      example: {
        enabled: true,
        rules: [
          { signal: 'email.clicked', points: 5 },
          { signal: 'booking.created', points: 20 },
          { signal: 'email.unsubscribed', points: -15 },
          { field: 'lifecycle_stage', equals: 'customer', points: 30 },
        ],
        half_life_days: 30,
      },
    },
    responses: answers,
  },
  async (c, read) => c.json(await putScoring(c.env, idParam(c, 'ws'), await read())),
);
