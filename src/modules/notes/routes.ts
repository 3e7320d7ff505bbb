import { z } from '@hono/zod-openapi';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { createRouter, idParams } from '../../platform/validation';
import { Note, NoteCreate, NoteListItem, NotePatch } from './dto';
import { createNote, deleteNote, listNotes, updateNote } from './service';
import { NoteErrors } from './errors';
import { ContactErrors } from '../contacts';

export const noteRoutes = createRouter();

noteRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contacts/{id}/notes',
    operationId: 'listContactNotes',
    tags: ['Notes'],
    summary: "List a contact's notes",
    description: 'A plain array, unpaginated: pinned notes first (most recently pinned on top), then the rest newest first.',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(z.array(NoteListItem), 'Notes') },
    errors: [ContactErrors.referenceNotFound],
  }),
  async (c) => c.json(await listNotes(c.var.db, c.var.workspace.id, c.req.valid('param').id.toLowerCase()), 200),
);

noteRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/contacts/{id}/notes',
    operationId: 'createContactNote',
    tags: ['Notes'],
    summary: 'Add a note to a contact',
    security: bearer,
    request: { params: idParams, body: jsonBody(NoteCreate, { body: 'Called about the renewal; follow up next week.', pinned: true }) },
    responses: { 201: jsonContent(Note, 'The note') },
    errors: [ContactErrors.referenceNotFound],
  }),
  async (c) => c.json(await createNote(c.var.db, c.var.workspace.id, c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 201),
);

noteRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/notes/{id}',
    operationId: 'updateNote',
    tags: ['Notes'],
    summary: 'Edit or (un)pin a note',
    security: bearer,
    request: { params: idParams, body: jsonBody(NotePatch, { pinned: false }) },
    responses: { 200: jsonContent(Note, 'The note') },
    errors: [NoteErrors.notFound],
  }),
  async (c) => c.json(await updateNote(c.var.db, c.var.workspace.id, c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 200),
);

noteRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/notes/{id}',
    operationId: 'deleteNote',
    tags: ['Notes'],
    summary: 'Delete a note',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(z.object({ success: z.literal(true) }), 'Deleted') },
    errors: [NoteErrors.notFound],
  }),
  async (c) => c.json(await deleteNote(c.var.db, c.var.workspace.id, c.req.valid('param').id.toLowerCase()), 200),
);
