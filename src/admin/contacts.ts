import { z } from '@hono/zod-openapi';
import { Hono, type Context } from 'hono';
import type { AdminEnv } from '../env';
import {
  createAttendanceEvent,
  setAttendance,
  recordComplaint,
  CHANNELS,
  findMergeRequest,
  resolveMergeRequest,
  eraseContact,
  EXPORT_KIND_NAMES,
  exportContact,
  applyParked,
} from '../modules/contacts';
import { submitForm } from '../modules/forms';
import type { ServiceContext } from '../platform/context';
import { AdminErrors } from './errors';
import { publishCommitted } from '../platform/outbox';
import { signalsCommitted } from '../platform/signals';
import { shardDb, shardNames } from '../platform/d1/shards';
import { boundedJsonObject, type JsonBounds } from '../platform/json-bounds';
import { INTEGER_RULE, PAGING_MAX } from '../platform/list';
import { isoDateTime, isUuid } from '../platform/validation';
import { Attendance, AttendanceEvent, Complaint, ContactErased, ContactExport, FormSubmission, MergeResolution } from './answers';
import { adminRoute } from './route';
import { idParam } from './validate';
import { workspaceContext } from '../modules/workspaces';
import { workspaceData } from './workspace-data';

/** Operator routes of the contact domain (docs/operator-api.md): complaints, merge requests, events, forms. */
export const contactAdmin = new Hono<AdminEnv>();

/** A service context for an operator call; `publish` hands its committed events on after the write. */
const operatorContext = (c: Context<AdminEnv>, workspaceId: string) => workspaceContext(c.env, workspaceId);

const publish = (c: Context<AdminEnv>, ctx: ServiceContext) => {
  if (ctx.events.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, ctx.db, ctx.events.committed));
  if (ctx.events.signalled.size) c.executionCtx.waitUntil(signalsCommitted(c.env, ctx.events.signalled));
};

/** A merge request id names no workspace: every shard is asked at once. */
async function locateMergeRequest(c: Context<AdminEnv>, id: string) {
  const found = await Promise.all(shardNames(c.env).map((shard) => findMergeRequest({ db: shardDb(c.env, shard) }, id)));
  const mr = found.find((row) => row !== null);
  if (!mr) throw AdminErrors.mergeRequestNotFound();
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
    contact: z
      .object({ email: z.string().max(255).optional(), phone: z.string().max(32).optional(), name: z.string().max(200).optional() })
      .strict()
      .optional(),
  })
  .strict();

const WS = { ws: 'The workspace id' };

adminRoute(
  contactAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/contacts/{id}/complaints',
    operationId: 'createComplaint',
    tag: 'Contacts',
    summary: 'Record a spam complaint',
    description: "The contact's consent on the channel becomes sticky `unsubscribed`; fires `contact.consent_changed` when it moves.",
    params: { ...WS, id: 'The contact id' },
    body: { schema: complaintBody, example: { channel: 'email' } },
    responses: { 201: { description: 'The complaint', schema: Complaint }, 404: { description: 'Unknown workspace or contact' } },
  },
  async (c, read) => {
    const [wsId, contactId] = [idParam(c, 'ws'), idParam(c, 'id')];
    const { channel } = await read();
    const ctx = await operatorContext(c, wsId);
    const out = await recordComplaint(ctx, contactId, channel);
    publish(c, ctx);
    return c.json(out, 201);
  },
);

adminRoute(
  contactAdmin,
  {
    method: 'post',
    path: '/merge-requests/{id}/resolve',
    operationId: 'resolveMergeRequest',
    tag: 'Contacts',
    summary: 'Resolve a merge request',
    description:
      '`merge` absorbs the other contact into the target and applies the parked fields silently; `dismiss` applies the parked fields as an ordinary update.',
    params: { id: 'The merge request id (`merge_request_id` of the 409)' },
    body: { schema: resolveBody, example: { action: 'merge' } },
    responses: {
      200: { description: 'The resolution', schema: MergeResolution },
      404: { description: '`Merge request not found`' },
      409: { description: '`Merge request is already resolved`, or the target contact no longer exists' },
    },
  },
  async (c, read) => {
    const id = idParam(c, 'id');
    const { action } = await read();
    const mr = await locateMergeRequest(c, id);
    const ctx = await operatorContext(c, mr.workspace_id);
    const out = await resolveMergeRequest(ctx, mr, action, (existing, input, mode, opts) => applyParked(ctx, existing, input, mode, opts));
    publish(c, ctx);
    return c.json(out);
  },
);

adminRoute(
  contactAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/events',
    operationId: 'createEvent',
    tag: 'Contacts',
    summary: 'Create an event contacts attend',
    params: WS,
    body: { schema: eventBody, example: { name: 'Spring webinar', start_at: '2030-03-01T17:00:00Z' } },
    responses: { 201: { description: 'The event', schema: AttendanceEvent }, 404: { description: '`Workspace not found`' } },
  },
  async (c, read) => {
    const wsId = idParam(c, 'ws');
    const input = await read();
    const { db } = await workspaceData(c, wsId);
    return c.json(await createAttendanceEvent(db, wsId, input), 201);
  },
);

adminRoute(
  contactAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/events/{event}/attendance',
    operationId: 'setAttendance',
    tag: 'Contacts',
    summary: "Set a contact's attendance of an event",
    description: 'Fires `event.attendance.changed` when the status changes.',
    params: { ...WS, event: 'The event id' },
    body: { schema: attendanceBody, example: { contact_id: '01a209ad-ce43-7fca-bcd8-0d2d74988cb4', status: 'attended' } },
    responses: { 201: { description: 'The attendance', schema: Attendance }, 404: { description: '`Event not found` or `Contact not found`' } },
  },
  async (c, read) => {
    const [wsId, eventId] = [idParam(c, 'ws'), idParam(c, 'event')];
    const input = await read();
    const ctx = await operatorContext(c, wsId);
    const out = await setAttendance(ctx, eventId, input);
    publish(c, ctx);
    return c.json(out, 201);
  },
);

adminRoute(
  contactAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/forms/{form}/submissions',
    operationId: 'createFormSubmission',
    tag: 'Contacts',
    summary: 'Record a form submission',
    description: 'The submitter becomes a contact (source `form`) when `contact` resolves to one; fires `form.submitted` either way.',
    params: { ...WS, form: 'The form id (the application names its forms)' },
    body: {
      schema: submissionBody,
      example: {
        form_name: 'Newsletter sign-up',
        origin: 'form',
        fields: { email: 'ada@example.com', interest: 'pricing' },
        contact: { email: 'ada@example.com', name: 'Ada Lovelace' },
      },
    },
    responses: { 201: { description: 'The submission', schema: FormSubmission }, 404: { description: '`Workspace not found`' } },
  },
  async (c, read) => {
    const [wsId, formId] = [idParam(c, 'ws'), idParam(c, 'form')];
    const input = await read();
    const ctx = await operatorContext(c, wsId);
    const out = await submitForm(ctx, formId, input);
    publish(c, ctx);
    return c.json(out, 201);
  },
);

const exportQuery = z.object({
  kind: z
    .string()
    .optional()
    .openapi({
      type: 'string',
      enum: [...EXPORT_KIND_NAMES],
      description:
        'Only this kind, from `offset`: pages through a kind listed in `truncated`. Another value answers 400 `Invalid kind: must be one of ...`',
    }),
  limit: z
    .string()
    .optional()
    .openapi({
      type: 'integer',
      minimum: 0,
      maximum: PAGING_MAX,
      default: 100,
      description: `Rows per kind, default 100; values above 1000 are clamped to 1000. ${INTEGER_RULE('limit')}`,
    }),
  offset: z
    .string()
    .optional()
    .openapi({
      type: 'integer',
      minimum: 0,
      maximum: PAGING_MAX,
      default: 0,
      description: `With \`kind\`: rows of that kind to skip. ${INTEGER_RULE('offset')}`,
    }),
});

adminRoute(
  contactAdmin,
  {
    method: 'get',
    path: '/workspaces/{ws}/contacts/{id}/export',
    operationId: 'exportContact',
    tag: 'Contacts',
    summary: 'Export everything held about a contact',
    description:
      "A data subject's copy: the contact as `GET /v1/contacts/{id}` answers it, then one key per kind of record (`identifiers`, `consent`, " +
      '`notes`, `timeline`, `tags`, `groups`, `custom_values`, `deals`, `payments`, `payment_entries`, `payment_requests`, `orders`, ' +
      '`order_items`, `order_refunds`, `emails`, `whatsapp_conversations`, `whatsapp_messages`, `bookings`, `newsletter_subscriptions`, ' +
      '`campaign_recipients`, `form_submissions`, `attendance`), each the stored records newest first, at most `limit` of each. ' +
      '`truncated` maps each kind holding more to its total: page through it with `kind` and `offset`. ' +
      'Pay-link and unsubscribe tokens are left out.',
    params: { ...WS, id: 'The contact id' },
    query: exportQuery,
    responses: { 200: { description: 'The export', schema: ContactExport }, 404: { description: 'Unknown workspace or contact' } },
  },
  async (c) => {
    const [wsId, contactId] = [idParam(c, 'ws'), idParam(c, 'id')];
    const { ws, db } = await workspaceData(c, wsId);
    return c.json(
      await exportContact(db, ws.id, contactId, { kind: c.req.query('kind'), limit: c.req.query('limit'), offset: c.req.query('offset') }),
    );
  },
);

adminRoute(
  contactAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/contacts/{id}/erase',
    operationId: 'eraseContact',
    tag: 'Contacts',
    summary: "Erase a contact's personal data",
    description:
      'The right to be forgotten, in one batch that happens whole or not at all: the contact and everything that identifies it are removed; ' +
      'records kept for accounting and statistics (payments, entries, payment requests, orders, deals, consent facts, email sends, ' +
      'WhatsApp messages, bookings) lose every identifier of the person. ' +
      'Fires `contact.deleted` once with the last-known phone, email and name; earlier events naming the contact keep only its id. ' +
      'An unknown or already erased contact answers 404.',
    params: { ...WS, id: 'The contact id' },
    responses: { 200: { description: 'Erased', schema: ContactErased }, 404: { description: '`Contact not found`, or an unknown workspace' } },
  },
  async (c) => {
    const [wsId, contactId] = [idParam(c, 'ws'), idParam(c, 'id')];
    const ctx = await operatorContext(c, wsId);
    const out = await eraseContact(ctx, contactId);
    publish(c, ctx);
    return c.json(out);
  },
);
