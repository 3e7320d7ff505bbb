import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { createSnippet } from '../modules/content/service';
import { body, idParam } from './validate';
import { workspaceData } from './workspace-data';

/** In-app content objects: snippets (docs/operator-api.md). */
export const contentAdmin = new Hono<AdminEnv>();

const snippetCreate = z
  .object({
    name: z.string().trim().min(1).max(200),
    markdown: z.string().min(1).max(100_000).optional(),
    html: z.string().min(1).max(100_000).optional(),
  })
  .strict()
  .refine((s) => (s.markdown === undefined) !== (s.html === undefined), { message: 'exactly one of markdown or html is required' });

contentAdmin.post('/workspaces/:ws/snippets', async (c) => {
  const { db, ws } = await workspaceData(c, idParam(c, 'ws'));
  const input = await body(c, snippetCreate);
  return c.json(await createSnippet(db, ws.id, input), 201);
});
