import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { createSnippet } from '../modules/content';
import { DomainError, FrameworkError } from '../platform/openapi';
import { Snippet } from './answers';
import { adminRoute } from './route';
import { idParam } from './validate';
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

adminRoute(
  contentAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/snippets',
    operationId: 'createSnippet',
    tag: 'Catalog',
    summary: 'Create a content snippet',
    description: 'Reusable content, referenced from campaigns and issues by name or id. Past the content limits: 400 `invalid_content`.',
    params: { ws: 'The workspace id' },
    body: { schema: snippetCreate, example: { name: 'footer', markdown: 'Acme · 1 Market Street · [acme.example](https://acme.example)' } },
    responses: {
      201: { description: 'The snippet', schema: Snippet },
      400: {
        description: 'A malformed request (framework shape), or content past the limits (`{error: {code: invalid_content}}`)',
        schema: z.union([FrameworkError, DomainError]),
      },
      404: { description: '`Workspace not found`' },
      409: { description: 'A snippet with this name exists (`{error: {code: duplicate_name}}`)', schema: DomainError },
    },
  },
  async (c, read) => {
    const { db, ws } = await workspaceData(c, idParam(c, 'ws'));
    const input = await read();
    return c.json(await createSnippet(db, ws.id, input), 201);
  },
);
