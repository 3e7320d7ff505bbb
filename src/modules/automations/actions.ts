import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/d1/db';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { ApiError } from '../../platform/errors';
import { keptLinkOrigin } from '../../platform/public-base';
import { whatsappProvider } from '../../providers/whatsapp';
import { contactProjectionOf, contactProjectionOfPlaceholder, emailEligibleContacts, normalizeWrite, patchContact } from '../contacts';
import { compileForWorkspace, newUnsubscribeToken, personalEmail } from '../content';
import { changeDealStage } from '../deals';
import { sendEmail } from '../emails';
import { createNote } from '../notes';
import { directDeliveryRow, getWebhookEvent, sendDirectDelivery } from '../webhooks';
import { sendTemplate } from '../whatsapp';
import type { Step } from './definition';
import { activeCondition, recordedStep, type RunPlan, type StepOutcome, stepRecord, triggerDataOf } from './run-state';

export type ActionInput = { env: Bindings; ctx: ServiceContext; plan: RunPlan; enrollmentId: string; step: Step };

/** A refusal of the request the step makes (the contact is gone, a template is not approved): the step failed, and why. */
const refused = (err: unknown): StepOutcome | null =>
  err instanceof ApiError && err.status < 500 ? { status: 'failed', reason: err.code ?? err.message } : null;

/** A name-based UUID (the bytes of SHA-256 over the name, version 8): what a step writes under it, a retry finds there. */
async function stepUuid(enrollmentId: string, stepId: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${enrollmentId}/${stepId}`)));
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * What a step that changes something does, once: each either writes under a key a repeat finds (a tag set,
 * a field value, a note id, a stage, an email's idempotency key) or claims its step row first and never
 * repeats once claimed (a WhatsApp send, whose provider call has no key of its own).
 */
export async function runAction(input: ActionInput): Promise<StepOutcome> {
  try {
    return await ACTIONS[input.step.type](input);
  } catch (err) {
    const outcome = refused(err);
    if (outcome) return outcome;
    throw err;
  }
}

const tagChange =
  (labelMode: 'add' | 'remove') =>
  async ({ ctx, plan, step }: ActionInput): Promise<StepOutcome> => {
    const tag = step.tag as string;
    await patchContact(ctx, plan.contactId, normalizeWrite(ctx, { tags: [tag] }), { source: 'automation', labelMode });
    return { status: 'completed', result: { tag } };
  };

const ACTIONS: Record<string, (input: ActionInput) => Promise<StepOutcome>> = {
  add_tag: tagChange('add'),
  remove_tag: tagChange('remove'),

  async update_contact({ ctx, plan, step }) {
    const fields = step.fields as Record<string, unknown>;
    await patchContact(ctx, plan.contactId, normalizeWrite(ctx, fields as never), { source: 'automation' });
    return { status: 'completed', result: { changed: Object.keys(fields) } };
  },

  async add_note({ ctx, plan, enrollmentId, step }) {
    const id = await stepUuid(enrollmentId, step.id);
    await createNote(ctx.db, ctx.ws.id, plan.contactId, { body: step.body as string }, { id, source: 'automation' });
    return { status: 'completed', result: { note_id: id } };
  },

  async move_deal({ ctx, enrollmentId, step }) {
    const dealId = (await triggerDataOf(ctx, enrollmentId))?.deal_id;
    if (typeof dealId !== 'string') return { status: 'skipped', reason: 'no_deal' };
    await changeDealStage(ctx, dealId, { stage_id: step.stage_id as string });
    return { status: 'completed', result: { deal_id: dealId, stage_id: step.stage_id } };
  },

  async send_email({ env, ctx, plan, enrollmentId, step }) {
    const { contacts } = await emailEligibleContacts(env, ctx, { contact_ids: [plan.contactId] }, { limit: 1 });
    const [contact] = contacts;
    if (!contact) return { status: 'skipped', reason: 'not_email_eligible' };
    const compiled = await compileForWorkspace(ctx.db, ctx.ws.id, step.content, {
      preheader: (step.preheader as string) ?? null,
      title: step.subject as string,
    });
    // The token is the step's own, kept on its row: a retried step links the same page.
    const token = await unsubscribeTokenOf(ctx, enrollmentId, step);
    const baseUrl = keptLinkOrigin(env, plan.linkOrigin);
    if (!baseUrl) return { status: 'failed', reason: 'no_link_origin' };
    const message = personalEmail({ subject: step.subject as string, html: compiled.compiled_html, text: compiled.plain_text }, contact, {
      baseUrl,
      token,
    });
    const sent = await sendEmail(
      { ...ctx, env, baseUrl },
      {
        to: contact.email,
        message,
        senderProfileId: step.sender_profile_id as string | undefined,
        idempotencyKey: `automation:${enrollmentId}:${step.id}`,
        source: 'automation',
      },
    );
    return sent.record.status === 'suppressed'
      ? { status: 'skipped', reason: 'suppressed', result: { send_id: sent.record.id } }
      : { status: 'completed', result: { send_id: sent.record.id } };
  },

  async send_whatsapp({ env, ctx, plan, enrollmentId, step }) {
    const [claimed] = await ctx.db.batch(
      stepRecord(ctx, enrollmentId, step, { status: 'waiting', reason: 'sending' }) as [Statement, ...Statement[]],
    );
    if ((claimed as unknown[]).length === 0) {
      // Claimed by an earlier attempt that may have sent: never send twice.
      const [row] = await recordedStep(ctx, enrollmentId, step.id);
      if (row && row.status !== 'waiting') return { status: row.status, reason: row.reason, result: row.result ? JSON.parse(row.result) : null };
      return { status: 'failed', reason: 'send_outcome_unknown' };
    }
    const phone = await contactPhone(ctx, plan.contactId);
    if (!phone) return { status: 'skipped', reason: 'no_phone' };
    const provider = whatsappProvider(env, ctx.db, ctx.ws);
    const variables = (step.variables as Record<string, unknown> | undefined) ?? {};
    const sent = await sendTemplate(ctx, provider, step.template_id as string, { ...variables, to: phone } as never);
    return { status: 'completed', result: { message_id: sent.message_id, wamid: sent.wamid } };
  },

  async webhook({ env, ctx, plan, enrollmentId, step }) {
    const endpointId = step.endpoint_id as string;
    const [row] = await recordedStep(ctx, enrollmentId, step.id);
    const known = row?.result ? (JSON.parse(row.result) as { event_id: string }) : null;
    if (known) {
      await sendDirectDelivery(env, ctx.ws.id, endpointId, await webhookEnvelope(ctx, known.event_id));
      return { status: 'completed', result: known };
    }
    const event = ctx.events.emitFrom(ctx.db, ctx.ws.id, 'automation.webhook', WEBHOOK_DATA, {
      enrollment: enrollmentId,
      step: step.id,
      contact: plan.contactId,
    });
    const outcome: StepOutcome = { status: 'completed', result: { event_id: event.event.id, endpoint_id: endpointId } };
    const [claimed, , , delivery] = await ctx.db.batch([
      ...stepRecord(ctx, enrollmentId, step, outcome),
      event.statement,
      directDeliveryRow(ctx, endpointId, event.event.id, 'automation.webhook'),
    ] as unknown as [Statement, ...Statement[]]);
    if ((claimed as unknown[]).length === 0) return outcome;
    if ((delivery as unknown[]).length === 0) return { status: 'failed', reason: 'endpoint_inactive' };
    await sendDirectDelivery(env, ctx.ws.id, endpointId, await webhookEnvelope(ctx, event.event.id));
    return outcome;
  },
};

/** The `automation.webhook` data, computed in the batch that records the step (the contact as it is then). */
const WEBHOOK_DATA = sql`(SELECT json_object('automation_id', e.automation_id, 'enrollment_id', e.id, 'step_id', ${sql.placeholder('step')},
  'contact_id', e.contact_id, 'contact', json(${contactProjectionOfPlaceholder}),
  'trigger', json(CASE WHEN e.trigger_event_id IS NOT NULL THEN json_object('event_id', e.trigger_event_id, 'event_type', e.trigger_event_type, 'data', json(e.trigger_data)) END))
  FROM automation_enrollments e WHERE e.id = ${sql.placeholder('enrollment')})`;

const webhookEnvelope = (ctx: ServiceContext, eventId: string) => getWebhookEvent(ctx, eventId);

async function contactPhone(ctx: ServiceContext, contactId: string): Promise<string | null> {
  const [row] = await rawAll<{ projection: string | null }>(ctx.db, sql`SELECT ${contactProjectionOf(ctx.ws.id, contactId)} AS projection`);
  return row?.projection ? (JSON.parse(row.projection).phone ?? null) : null;
}

/** The unsubscribe token of a send step, made on its first attempt and kept on its row. */
async function unsubscribeTokenOf(ctx: ServiceContext, enrollmentId: string, step: Step): Promise<string> {
  const token = newUnsubscribeToken(ctx.ws.id, 'automation');
  const [, [row]] = await ctx.db.batch([
    rawRun(
      ctx.db,
      sql`INSERT INTO automation_step_runs (enrollment_id, step_id, workspace_id, type, status, seq, started_at, unsubscribe_token)
        SELECT ${enrollmentId}, ${step.id}, ${ctx.ws.id}, ${step.type}, 'waiting',
          (SELECT coalesce(max(seq), 0) + 1 FROM automation_step_runs WHERE enrollment_id = ${enrollmentId}), ${nowIso()}, ${token}
        WHERE ${activeCondition(ctx, enrollmentId)}
        ON CONFLICT (enrollment_id, step_id) DO UPDATE SET unsubscribe_token = coalesce(automation_step_runs.unsubscribe_token, excluded.unsubscribe_token)`,
    ),
    rawAll<{ unsubscribe_token: string | null }>(
      ctx.db,
      sql`SELECT unsubscribe_token FROM automation_step_runs WHERE enrollment_id = ${enrollmentId} AND step_id = ${step.id}`,
    ),
  ]);
  return row?.unsubscribe_token ?? token;
}
