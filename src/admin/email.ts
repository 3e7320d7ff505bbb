import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { createAudience, Audience } from '../modules/audiences';
import { audienceFiltersInput } from '../modules/contacts';
import { locateSend, reportFact, displayName } from '../modules/emails';
import { OUTBOX_CHANNELS, type OutboxChannel, listOutbox } from '../modules/sandbox-outbox';
import { createSenderProfile, SenderProfile } from '../modules/sender-profiles';
import { workspaceContext } from '../modules/workspaces';
import { isUuid } from '../platform/validation';
import { Outbox, SendEventRecorded } from './answers';
import { adminRoute } from './route';
import { idParam, limitParam, limitQuery } from './validate';
import { workspaceData } from './workspace-data';
import { SharedErrors } from '../platform/shared-errors';
import { AdminErrors } from './errors';

/** Operator routes of the email domain (docs/operator-api.md): sender profiles, audiences, the sandbox outbox, send events. */
export const emailAdmin = new Hono<AdminEnv>();

const email = z.string().trim().max(320).pipe(z.email());

const senderProfileBody = z
  .object({
    from_name: displayName(z.string().trim().min(1).max(200), 'from_name'),
    from_email: email,
    reply_to: email.nullable().optional(),
    domain_verified: z.boolean(),
    is_default: z.boolean(),
  })
  .strict();

const audienceBody = z.discriminatedUnion('kind', [
  z.object({ name: z.string().trim().min(1).max(200), kind: z.literal('dynamic'), filters: audienceFiltersInput() }).strict(),
  z
    .object({
      name: z.string().trim().min(1).max(200),
      kind: z.literal('static'),
      contact_ids: z.array(z.string().refine(isUuid, { message: 'contact_ids must hold UUIDs' })).max(10_000),
    })
    .strict(),
]);

const sendEventBody = z
  .object({
    type: z.enum(['delivered', 'bounced', 'complained', 'opened', 'clicked']),
    bounce_type: z.enum(['hard', 'soft', 'block']).optional(),
    url: z.string().max(4096).optional(),
    machine: z.boolean().optional(),
  })
  .strict();

const WS = { ws: 'The workspace id' };
const outboxQuery = z.object({
  channel: z
    .string()
    .optional()
    .openapi({ type: 'string', enum: [...OUTBOX_CHANNELS], description: 'Another value answers 400 `Invalid channel: ...`' }),
  to: z.string().optional().openapi({ description: 'Exact recipient (an email address, case-insensitive, or an E.164 phone)' }),
  ...limitQuery.shape,
});

adminRoute(
  emailAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/sender-profiles',
    operationId: 'createSenderProfile',
    tag: 'Catalog',
    summary: 'Create a sender profile',
    description: 'A new default takes the flag from the previous one. `from_name` refuses control characters and `< > , @ "`.',
    params: WS,
    body: {
      schema: senderProfileBody,
      example: {
        from_name: 'Acme',
        from_email: 'hello@mail.acme.example',
        reply_to: 'support@acme.example',
        domain_verified: true,
        is_default: true,
      },
    },
    responses: {
      201: { description: 'The sender profile, as `GET /v1/sender-profiles` reads it', schema: SenderProfile },
      404: { description: '`Workspace not found`' },
    },
  },
  async (c, read) => {
    const wsId = idParam(c, 'ws');
    const input = await read();
    return c.json(await createSenderProfile(await workspaceContext(c.env, wsId), input, c.env.EMAIL_PROVIDER || 'sandbox'), 201);
  },
);

adminRoute(
  emailAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/audiences',
    operationId: 'createAudience',
    tag: 'Catalog',
    summary: 'Create an audience',
    description: '`dynamic`: a contact condition tree (`filters`); `static`: up to 10,000 contact ids.',
    params: WS,
    body: { schema: audienceBody, example: { name: 'Prospects', kind: 'dynamic', filters: { lifecycle_stage: 'prospect' } } },
    responses: {
      201: { description: 'The audience, as `GET /v1/audiences` reads it', schema: Audience },
      404: { description: '`Workspace not found`' },
    },
  },
  async (c, read) => {
    const wsId = idParam(c, 'ws');
    const input = await read();
    const { db } = await workspaceData(c, wsId);
    return c.json(await createAudience(db, wsId, input), 201);
  },
);

adminRoute(
  emailAdmin,
  {
    method: 'get',
    path: '/workspaces/{ws}/outbox',
    operationId: 'listOutbox',
    tag: 'Sandbox and sweeps',
    summary: 'What the sandbox providers accepted',
    description: 'Email and WhatsApp messages the sandbox providers took, newest first.',
    params: WS,
    query: outboxQuery,
    responses: { 200: { description: 'The messages', schema: Outbox }, 404: { description: '`Workspace not found`' } },
  },
  async (c) => {
    const wsId = idParam(c, 'ws');
    const channel = c.req.query('channel') || undefined;
    if (channel !== undefined && !OUTBOX_CHANNELS.includes(channel as OutboxChannel))
      throw SharedErrors.notOneOf({ name: 'channel', values: OUTBOX_CHANNELS.join(', ') });
    const limit = limitParam(c);
    const { db } = await workspaceData(c, wsId);
    const to = c.req.query('to')?.trim().toLowerCase() || undefined;
    return c.json({ data: await listOutbox(db, wsId, { channel: channel as OutboxChannel | undefined, to, limit }) });
  },
);

/** What a provider webhook would report about a send: the same path as `POST /providers/email/{provider}`. */
adminRoute(
  emailAdmin,
  {
    method: 'post',
    path: '/email-sends/{send_id}/events',
    operationId: 'reportEmailSendEvent',
    tag: 'Sandbox and sweeps',
    summary: 'Report a provider event about a send',
    description: 'What a provider webhook would report (delivered, bounced, complained, opened, clicked), through the same path.',
    params: { send_id: 'The email send id' },
    body: { schema: sendEventBody, example: { type: 'bounced', bounce_type: 'hard' } },
    responses: { 201: { description: 'What was recorded', schema: SendEventRecorded }, 404: { description: '`Email send not found`' } },
  },
  async (c, read) => {
    const sendId = idParam(c, 'send_id');
    const input = await read();
    const found = await locateSend(c.env, { id: sendId });
    if (!found) throw AdminErrors.emailSendNotFound();
    const out = await reportFact(
      c.env,
      found.db,
      found.send,
      { type: input.type, bounceType: input.bounce_type, url: input.url, machine: input.machine },
      (p) => c.executionCtx.waitUntil(p),
    );
    return c.json({ send_id: sendId, type: input.type, ...out }, 201);
  },
);
