import { z } from '@hono/zod-openapi';
import { bearer, defineRoute, jsonContent } from '../../platform/openapi';
import { createRouter } from '../../platform/validation';
import { Pipeline } from './dto';
import { listPipelines } from './service';

export const pipelineRoutes = createRouter();

pipelineRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/pipelines',
    operationId: 'listPipelines',
    tags: ['Pipelines'],
    summary: 'List pipelines with their stages',
    description: 'A plain array ordered by `position`, each with ordered `stages`. Requires the `deals` feature.',
    security: bearer,
    responses: { 200: jsonContent(z.array(Pipeline), 'Pipelines') },
  }),
  async (c) => c.json(await listPipelines(c.var.db, c.var.workspace.id), 200),
);
