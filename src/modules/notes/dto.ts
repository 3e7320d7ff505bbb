import { z } from '@hono/zod-openapi';

const body = z.string().trim().min(1, { message: 'body must not be empty' }).max(5000);

export const NoteCreate = z.object({ body, pinned: z.boolean().optional() }).strict().openapi('NoteCreate');
export const NotePatch = z.object({ body: body.optional(), pinned: z.boolean().optional() }).strict().openapi('NotePatch');

export const Note = z
  .object({
    id: z.string().uuid(),
    workspace_id: z.string().uuid(),
    contact_id: z.string().uuid(),
    author_user_id: z.string().uuid().nullable().openapi({ description: 'null for API notes' }),
    source: z.string().openapi({ description: '`api` for notes created through the API' }),
    body: z.string(),
    body_json: z.null(),
    mentioned_user_ids: z.null(),
    conversation_id: z.null(),
    pinned_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Note');

export const NoteListItem = Note.extend({ author_name: z.string().nullable() }).openapi('NoteListItem');
