import { sql } from 'drizzle-orm';
import type { Bindings } from '../../../env';
import type { ServiceContext } from '../../../platform/context';
import { type Db, guarded, nowIso } from '../../../platform/d1/db';
import { guardOf } from '../../../platform/d1/constraints';
import { runOperation, type WriteBatch } from '../../../platform/d1/operation';
import { uuidv7 } from '../../../platform/ids';
import { rawAll, rawRun } from '../../../platform/d1/raw-query';
import { activity } from '../timeline';
import { contacts, SUPPRESSING_DELIVERABILITY, type Channel } from '../schema';
import { onPlatformList, suppressedSql } from '../../suppressions';
import { contactPhoneBlacklisted } from '../../blacklist';
import { consentLedger } from './schema';
import { ConsentErrors } from './errors';
import { ContactErrors } from '../errors';

type State = 'subscribed' | 'unsubscribed' | 'unknown';
/** A contact's consent columns with the verdicts its shard holds (the platform list is read apart: `consentAnswer`). */
export type ConsentRow = {
  id: string;
  phone: string | null;
  email: string | null;
  block_state: string;
  whatsapp_consent_state: State | null;
  whatsapp_consent_updated_at: string | null;
  whatsapp_deliverability: string;
  whatsapp_complained_at: string | null;
  email_consent_state: State | null;
  email_consent_updated_at: string | null;
  email_deliverability: string;
  email_complained_at: string | null;
  email_suppressed: number;
  phone_blacklisted: number;
};

/** Consent columns plus the suppression and blacklist verdicts, in one statement. */
const selectConsent = (ctx: ServiceContext, contactId: string) =>
  rawAll<ConsentRow>(
    ctx.db,
    sql`SELECT c.id, c.phone, c.email, c.block_state,
      c.whatsapp_consent_state, c.whatsapp_consent_updated_at, c.whatsapp_deliverability, c.whatsapp_complained_at,
      c.email_consent_state, c.email_consent_updated_at, c.email_deliverability, c.email_complained_at,
      ${suppressedSql(sql.raw('c.workspace_id'), sql.raw('c.email'))} AS email_suppressed,
      ${contactPhoneBlacklisted} AS phone_blacklisted
    FROM contacts c WHERE c.workspace_id = ${ctx.ws.id} AND c.id = ${contactId}`,
  );

/**
 * The email send-time verdict as the shard holds it: a suppression list row, the blacklist (a
 * blacklisted phone or any block on the contact), a complaint, or a deliverability that bounces;
 * independent of the consent decision.
 */
function suppressedOnShard(r: ConsentRow): boolean {
  return (
    r.email_suppressed === 1 ||
    r.phone_blacklisted === 1 ||
    r.block_state !== 'none' ||
    r.email_complained_at !== null ||
    SUPPRESSING_DELIVERABILITY.includes(r.email_deliverability)
  );
}

function serializeConsent(r: ConsentRow, platformListed: boolean) {
  return {
    contact_id: r.id,
    whatsapp: {
      consent_state: r.whatsapp_consent_state ?? 'unknown',
      deliverability: r.whatsapp_deliverability,
      updated_at: r.whatsapp_consent_updated_at,
    },
    email: {
      consent_state: r.email_consent_state ?? 'unknown',
      deliverability: r.email_deliverability,
      suppressed: platformListed || suppressedOnShard(r),
      updated_at: r.email_consent_updated_at,
    },
  };
}

/**
 * The consent answer: the row's verdicts and the platform list's, one look-up in the control
 * plane after the shard's read (none when the shard's verdict already suppresses, or there is no address).
 */
export async function consentAnswer(env: Bindings, r: ConsentRow) {
  const listed = r.email !== null && !suppressedOnShard(r) && (await onPlatformList(env, r.email));
  return serializeConsent(r, listed);
}

/** The contact's consent row; 404 `contact_not_found`. */
export async function consentRow(ctx: ServiceContext, contactId: string): Promise<ConsentRow> {
  const [row] = await selectConsent(ctx, contactId);
  if (!row) throw ConsentErrors.contactNotFound();
  return row;
}

export async function getConsent(env: Bindings, ctx: ServiceContext, contactId: string) {
  return consentAnswer(env, await consentRow(ctx, contactId));
}

export type ConsentInput = { state: 'subscribed' | 'unsubscribed'; source?: string; basis?: string; evidence?: Record<string, unknown> };

const stateColumns = (channel: Channel) => ({
  state: sql.raw(`${channel}_consent_state`),
  updated: sql.raw(`${channel}_consent_updated_at`),
  complained: sql.raw(`${channel}_complained_at`),
});

/**
 * Records a decision with its evidence. Every PUT writes a ledger row; only a
 * real change moves the stored state and emits `contact.consent_changed`. A
 * channel with a complaint on record is sticky (409). The change applies only
 * to the state that was read and no complaint (else the batch fails and is
 * re-read), so parallel writes fire once and a racing complaint stays sticky.
 * Answers the row as the write left it (`consentAnswer` makes the route's answer).
 */
export function setConsent(ctx: ServiceContext, contactId: string, channel: Channel, input: ConsentInput): Promise<ConsentRow> {
  return runOperation(ctx, {
    reads: { consent: selectConsent(ctx, contactId) },
    decide: (read, batch) => {
      const [row] = read.consent;
      if (!row) throw ConsentErrors.contactNotFound();
      if (row[`${channel}_complained_at`]) {
        throw ConsentErrors.stickyComplained({ channel });
      }
      const previous = row[`${channel}_consent_state`];
      const action = input.state === 'unsubscribed' ? 'unsubscribe' : previous === 'unsubscribed' ? 'resubscribe' : 'opt_in';
      const decision = { channel, action, previous, source: input.source ?? 'api', now: nowIso(), ledgerId: uuidv7() } as const;
      batch.write(
        ctx.db.insert(consentLedger).values({
          id: decision.ledgerId,
          workspace_id: ctx.ws.id,
          contact_id: contactId,
          channel,
          action: previous === input.state ? 'reassert' : action,
          state: input.state,
          previous_state: previous,
          source: decision.source,
          basis: input.basis ?? null,
          evidence: input.evidence ?? null,
          created_at: decision.now,
        }),
      );
      if (previous !== input.state) changeConsent(ctx, batch, contactId, input, decision);
      return batch.answer(selectConsent(ctx, contactId), ([after]) => after);
    },
    lostRaceOn: consentRaces,
  });
}

/** A parallel consent write or complaint changed the channel after it was read (see `whileState`). */
const consentRaces = [guardOf(contacts.updated_at)];

/** `updated_at = now` only while the channel still holds the state that was read (see `guarded`). */
const whileState = (channel: Channel, previous: State | null, now: string, extra = sql`1`) =>
  guarded(sql`${stateColumns(channel).state} IS ${previous} AND ${extra}`, sql`${now}`);

/** A decision that changes the stored state: the state, the timeline row, `contact.consent_changed`, and an email unsubscribe's signal. */
function changeConsent(
  ctx: ServiceContext,
  batch: WriteBatch,
  contactId: string,
  input: ConsentInput,
  decision: { channel: Channel; action: string; previous: State | null; source: string; now: string; ledgerId: string },
) {
  const { channel, action, previous, source, now } = decision;
  const col = stateColumns(channel);
  batch.write(
    rawRun(
      ctx.db,
      sql`UPDATE contacts SET ${col.state} = ${input.state}, ${col.updated} = ${now},
        updated_at = ${whileState(channel, previous, now, sql`${col.complained} IS NULL`)}
        WHERE workspace_id = ${ctx.ws.id} AND id = ${contactId}`,
    ),
    activity(ctx, contactId, 'consent_changed', source, { channel, action, consent_state: input.state, previous_state: previous }, now),
  );
  batch.emit('contact.consent_changed', {
    contact_id: contactId,
    source,
    channel,
    action,
    consent_state: input.state,
    previous_state: previous,
    basis: input.basis ?? null,
    consent_event_id: decision.ledgerId,
  });
  if (channel === 'email' && input.state === 'unsubscribed') batch.signal(contactId, 'email.unsubscribed');
}

/**
 * A spam complaint (operator / provider report): the channel becomes sticky and
 * is unsubscribed; the ledger records it and a state change emits the event.
 */
export function recordComplaint(ctx: ServiceContext, contactId: string, channel: Channel) {
  return runOperation(ctx, {
    reads: { consent: selectConsent(ctx, contactId) },
    decide: (read, batch) => {
      const [row] = read.consent;
      if (!row) throw ContactErrors.referenceNotFound();
      const previous = row[`${channel}_consent_state`];
      const now = nowIso();
      const complainedAt = row[`${channel}_complained_at`] ?? now;
      const ledgerId = uuidv7();
      const col = stateColumns(channel);
      batch.write(
        rawRun(
          ctx.db,
          sql`UPDATE contacts SET ${col.complained} = coalesce(${col.complained}, ${now}), ${col.state} = 'unsubscribed',
      ${col.updated} = CASE WHEN ${col.state} IS 'unsubscribed' THEN ${col.updated} ELSE ${now} END, updated_at = ${whileState(channel, previous, now)}
      WHERE workspace_id = ${ctx.ws.id} AND id = ${contactId}`,
        ),
        ctx.db.insert(consentLedger).values({
          id: ledgerId,
          workspace_id: ctx.ws.id,
          contact_id: contactId,
          channel,
          action: 'complaint',
          state: 'unsubscribed',
          previous_state: previous,
          source: 'complaint',
          basis: null,
          evidence: null,
          created_at: now,
        }),
      );
      if (previous !== 'unsubscribed') announceComplaint(ctx, batch, contactId, { channel, previous, now, ledgerId });
      return batch.answerWith({ contact_id: contactId, channel, complained_at: complainedAt });
    },
    lostRaceOn: consentRaces,
  });
}

/** A complaint that unsubscribed the channel: the timeline row, `contact.consent_changed`, and an email's unsubscribe signal. */
function announceComplaint(
  ctx: ServiceContext,
  batch: WriteBatch,
  contactId: string,
  complaint: { channel: Channel; previous: State | null; now: string; ledgerId: string },
) {
  const { channel, previous } = complaint;
  const change = { channel, action: 'complaint', consent_state: 'unsubscribed', previous_state: previous };
  batch.write(activity(ctx, contactId, 'consent_changed', 'complaint', change, complaint.now));
  batch.emit('contact.consent_changed', {
    contact_id: contactId,
    source: 'complaint',
    channel,
    action: 'complaint',
    consent_state: 'unsubscribed',
    previous_state: previous,
    basis: null,
    consent_event_id: complaint.ledgerId,
  });
  if (channel === 'email') batch.signal(contactId, 'email.unsubscribed');
}

/**
 * Provider-reported deliverability of an address (a hard bounce, a complaint)
 * onto the workspace's contact holding it, as a statement for the report's
 * batch. The consent read then answers it, and its `suppressed` verdict
 * follows (SUPPRESSING_DELIVERABILITY). Consent decisions are not touched.
 */
export const emailDeliverabilityStatement = (db: Db, workspaceId: string, email: string, value: 'bounced' | 'complained') =>
  rawRun(db, sql`UPDATE contacts SET email_deliverability = ${value} WHERE workspace_id = ${workspaceId} AND email = ${email.trim().toLowerCase()}`);
