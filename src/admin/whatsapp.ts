import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { BUTTON_TYPES, MEDIA_TYPES, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES, createTemplate, Template } from '../modules/whatsapp';
import { adminRoute } from './route';
import { idParam } from './validate';
import { workspaceData } from './workspace-data';

/** In-app WhatsApp management: templates (docs/operator-api.md). */
export const whatsappAdmin = new Hono<AdminEnv>();

const templateCreate = z
  .object({
    name: z.string().trim().min(1).max(512),
    language: z.string().trim().min(2).max(15),
    category: z.enum(TEMPLATE_CATEGORIES),
    status: z.enum(TEMPLATE_STATUSES).optional(),
    body: z.string().min(1).max(1024),
    header: z
      .union([z.object({ type: z.literal('text'), text: z.string().min(1).max(60) }).strict(), z.object({ type: z.enum(MEDIA_TYPES) }).strict()])
      .nullable()
      .optional(),
    buttons: z
      .array(
        z
          .object({
            type: z.enum(BUTTON_TYPES),
            text: z.string().min(1).max(25),
            url: z.string().max(2000).optional(),
            phone_number: z.string().max(32).optional(),
          })
          .strict(),
      )
      .max(10)
      .optional(),
  })
  .strict();

adminRoute(
  whatsappAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/templates',
    operationId: 'createTemplate',
    tag: 'Catalog',
    summary: 'Create a WhatsApp template',
    description: 'Placeholders `{{1}}` or `{{name}}`, not mixed; positional ones without gaps.',
    params: { ws: 'The workspace id' },
    body: {
      schema: templateCreate,
      example: { name: 'order_update', language: 'en_US', category: 'utility', body: 'Hi {{1}}, your order {{2}} is on its way.' },
    },
    responses: {
      201: { description: 'The template, as `GET /v1/templates/{id}` reads it', schema: Template },
      404: { description: '`Workspace not found`' },
      409: { description: 'A template with this name and language exists' },
    },
  },
  async (c, read) => {
    const { db, ws } = await workspaceData(c, idParam(c, 'ws'));
    const input = await read();
    return c.json(await createTemplate(db, ws.id, input), 201);
  },
);
