import { z } from '@hono/zod-openapi';
import { Hono, type Context } from 'hono';
import type { AdminEnv } from '../env';
import { createAttendanceEvent, setAttendance } from '../modules/attendance/service';
import { recordComplaint } from '../modules/consent/service';
import { CHANNELS } from '../modules/contacts/schema';
import { findMergeRequest, resolveMergeRequest } from '../modules/contacts/merge';
import { applyParked } from '../modules/contacts/service';
import { submitForm } from '../modules/forms/service';
import type { ServiceContext } from '../platform/context';
import { httpError } from '../platform/errors';
import { publishCommitted } from '../platform/events';
import { shardDb, shardNames } from '../platform/shards';
import { boundedJsonObject, type JsonBounds } from '../platform/json-bounds';
import { isoDateTime, isUuid } from '../platform/validation';
import { body, idParam } from './validate';
import { workspaceContext } from '../modules/workspaces/context';
import { workspaceData } from './workspace-data';

/** Operator routes of the contact domain (docs/operator-api.md): complaints, merge requests, events, forms. */
export const contactAdmin = new Hono<AdminEnv>();

/** A service context for an operator call; `publish` hands its committed events on after the write. */
const operatorContext = (c: Context<AdminEnv>, workspaceId: string) => workspaceContext(c.env, workspaceId);

const publish = (c: Context<AdminEnv>, ctx: ServiceContext) => {
  if (ctx.events.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, ctx.db, ctx.events.committed));
};

/** A merge request id names no workspace: every shard is asked at once. */
async function locateMergeRequest(c: Context<AdminEnv>, id: string) {
  const found = await Promise.all(shardNames(c.env).map((shard) => findMergeRequest({ db: shardDb(c.env, shard) }, id)));
  const mr = found.find((row) => row !== null);
  if (!mr) throw httpError(404, 'Merge request not found');
  return mr;
}
/** Submissions are stored and carried by `form.submitted`; bounded like other free-form objects. */
const FORM_FIELDS_BOUNDS: JsonBounds = { maxDepth: 5, maxKeys: 200, maxBytes: 32_768 };

const complaintBody = z.object({ channel: z.enum(CHANNELS) }).strict();
const resolveBody = z.object({ action: z.enum(['merge', 'dismiss']) }).strict();
const eventBody = z.object({ name: z.string().trim().min(1).max(200), start_at: isoDateTime('start_at') }).strict();
const attendanceBody = z
  .object({ contact_id: z.string().refine(isUuid, { message: 'contact_id must be a UUID' }), status: z.string().trim().min(1).max(40) })
  .strict();
const submissionBody = z
  .object({
    form_name: z.string().trim().min(1).max(200),
    origin: z.enum(['form', 'landing_page', 'popup']),
    fields: boundedJsonObject(FORM_FIELDS_BOUNDS, 'The submitted fields'),
    contact: z.object({ email: z.string().max(255).optional(), phone: z.string().max(32).optional(), name: z.string().max(200).optional() }).strict().optional(),
  })
  .strict();

contactAdmin.post('/workspaces/:ws/contacts/:id/complaints', async (c) => {
  const [wsId, contactId] = [idParam(c, 'ws'), idParam(c, 'id')];
  const { channel } = await body(c, complaintBody);
  const ctx = await operatorContext(c, wsId);
  const out = await recordComplaint(ctx, contactId, channel);
  publish(c, ctx);
  return c.json(out, 201);
});

contactAdmin.post('/merge-requests/:id/resolve', async (c) => {
  const id = idParam(c, 'id');
  const { action } = await body(c, resolveBody);
  const mr = await locateMergeRequest(c, id);
  const ctx = await operatorContext(c, mr.workspace_id);
  const out = await resolveMergeRequest(ctx, mr, action, (existing, input, mode, opts) => applyParked(ctx, existing, input, mode, opts));
  publish(c, ctx);
  return c.json(out);
});

contactAdmin.post('/workspaces/:ws/events', async (c) => {
  const wsId = idParam(c, 'ws');
  const input = await body(c, eventBody);
  const { db } = await workspaceData(c, wsId);
  return c.json(await createAttendanceEvent(db, wsId, input), 201);
});

contactAdmin.post('/workspaces/:ws/events/:event/attendance', async (c) => {
  const [wsId, eventId] = [idParam(c, 'ws'), idParam(c, 'event')];
  const input = await body(c, attendanceBody);
  const ctx = await operatorContext(c, wsId);
  const out = await setAttendance(ctx, eventId, input);
  publish(c, ctx);
  return c.json(out, 201);
});

contactAdmin.post('/workspaces/:ws/forms/:form/submissions', async (c) => {
  const [wsId, formId] = [idParam(c, 'ws'), idParam(c, 'form')];
  const input = await body(c, submissionBody);
  const ctx = await operatorContext(c, wsId);
  const out = await submitForm(ctx, formId, input);
  publish(c, ctx);
  return c.json(out, 201);
});
