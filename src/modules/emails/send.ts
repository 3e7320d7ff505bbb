import { and, eq, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { nowIso, runBatch, type Statement } from '../../platform/d1/db';
import { readAll } from '../../platform/d1/operation';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import type { ApiError } from '../../platform/errors';
import { sha256Hex, uuidv7 } from '../../platform/ids';
import { prepared, preparedInsert, preparedSql } from '../../platform/d1/prepared';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { writeThenRead } from '../../platform/d1/write-then-read';
import { claimInstanceName, type ClaimResult } from '../../durable-objects/idempotency-claims';
import { type BatchedHandOff, configuredEmailProvider, type EmailAttachment, ProviderRejected } from '../../providers/email';
import { senderCandidates, fromEmail, type SenderProfileRow, SenderProfileErrors } from '../sender-profiles';
import { onPlatformList, suppressedQuery } from '../suppressions';
import { checkMetadata, normalizeRecipient, prepareEmail, type PreparedEmail, type RenderedEmail } from './content';
import { isPlainAddress, mailbox } from './header-safety';
import { emailQuotaUsage, emailSends, emailWarmingUsage } from './schema';
import { applyTracking } from './tracking';
import { EmailErrors } from './errors';

/**
 * The one send path. `POST /v1/emails` calls it with `source: 'api'`; booking
 * confirmations, campaigns and newsletters call it with their own source (only
 * `api` sends fire `email.*` webhook events). See docs/email.md.
 */
export type SendEmailInput = {
  /** Validated here: 422 `invalid_recipient`. */
  to: string;
  /** Subject plus `html` and/or `text` (the missing part is derived) and the optional List-Unsubscribe headers. */
  message: RenderedEmail;
  /** Default: the workspace's default verified profile. */
  senderProfileId?: string;
  /** Default: the sender profile's `reply_to`. */
  replyTo?: string;
  /** With a key the send happens at most once per workspace and key (claimed first, replayed after). */
  idempotencyKey?: string;
  tracking?: { opens?: boolean; clicks?: boolean };
  /** At most 2048 bytes serialized; echoed in `email.*` events. */
  metadata?: Record<string, unknown>;
  /** Who sends: `api`, `booking`, `campaign`, `newsletter`, ... */
  source: string;
  /** Files handed to the provider with the message (a booking's `invite.ics`); not part of the API's send. */
  attachments?: EmailAttachment[];
};

/** The send record (`POST /v1/emails` answers it as is). */
export type SendRecord = {
  id: string;
  status: 'sent' | 'suppressed';
  duplicate: boolean;
  to: string;
  idempotency_key: string | null;
  provider_message_id: string | null;
  reason: 'suppressed' | null;
  created_at: string;
};

/** `fresh`: this call performed the send (201); otherwise it is a replay or a recovered claim (200, `duplicate: true`). */
/** `bookmark`: where the data stood when a replayed answer was recorded (a replay reads nothing itself). */
export type SendResult = { record: SendRecord; fresh: boolean; bookmark?: string | null };

/**
 * The request's service context plus the bindings (provider, claims, tracking secret), the origin
 * of tracking links and the request session's bookmark, recorded with the answer for its replays.
 */
export type SendContext = ServiceContext & { env: Bindings; baseUrl: string; sessionBookmark?: () => string | null };

export type SendRow = typeof emailSends.$inferSelect;

const DEFAULT_LEASE_SECONDS = 180;

export function claimLeaseMs(env: Bindings): number {
  const seconds = Number(env.EMAIL_CLAIM_LEASE_SECONDS ?? DEFAULT_LEASE_SECONDS);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_LEASE_SECONDS) * 1000;
}

export const serializeSend = (r: SendRow, duplicate = false): SendRecord => ({
  id: r.id,
  status: r.status === 'suppressed' ? 'suppressed' : 'sent',
  duplicate,
  to: r.to,
  idempotency_key: r.idempotency_key,
  provider_message_id: r.provider_message_id,
  reason: r.status === 'suppressed' ? 'suppressed' : null,
  created_at: r.created_at,
});

/** The claims instance holding one (workspace, key). */
export const claimsFor = (env: Bindings, workspaceId: string, key: string) =>
  env.EMAIL_CLAIMS.get(env.EMAIL_CLAIMS.idFromName(claimInstanceName(workspaceId, key)));

/**
 * Sends one email (docs/email.md "Order of work").
 *
 * Validation first (nothing claimed yet), then the key is claimed in the
 * IdempotencyClaims Durable Object before any gate: a finished key replays its
 * first answer, a live claim answers 409 `send_in_progress`. Every error before
 * the provider hand-off releases the key; an error after it keeps the claim,
 * whose lease then lets a retry recover (200 `duplicate: true`).
 */
export async function sendEmail(ctx: SendContext, input: SendEmailInput): Promise<SendResult> {
  const to = normalizeRecipient(input.to);
  const prepared = prepareEmail(input.message);
  checkMetadata(input.metadata);
  const key = input.idempotencyKey;
  const progress = { handedOff: false };
  if (key === undefined) return deliver(ctx, input, to, prepared, progress);

  const claims = claimsFor(ctx.env, ctx.ws.id, key);
  const claim = (await claims.claim(key, claimLeaseMs(ctx.env))) as ClaimResult;
  if (claim.state === 'done') return { record: { ...(claim.response as SendRecord), duplicate: true }, fresh: false, bookmark: claim.bookmark };
  if (claim.state === 'processing') {
    throw EmailErrors.sendInProgress();
  }
  try {
    const out = await deliver(ctx, input, to, prepared, progress);
    await claims.complete(key, claim.token, { ...out.record, duplicate: false }, ctx.sessionBookmark?.() ?? null);
    // A recovered claim, or a key whose send D1 already holds, answers as a replay.
    return claim.recovered || !out.fresh ? { record: { ...out.record, duplicate: true }, fresh: false } : out;
  } catch (err) {
    if (!progress.handedOff) await claims.release(key, claim.token).catch((e) => console.error('claim release failed', e));
    throw err;
  }
}

/** The sender gate: a named profile must exist, and the chosen one must be on a verified domain with one plain From address. */
export function senderRefusal(profileId: string | undefined, sender: SenderProfileRow | undefined): ApiError | null {
  if (profileId !== undefined && !sender) return SenderProfileErrors.notFound.email();
  if (!sender?.domain_verified) return EmailErrors.noVerifiedSender.none();
  if (!isPlainAddress(fromEmail(sender))) return EmailErrors.noVerifiedSender.noValidAddress();
  return null;
}

/** A send row in `sending`, not yet counted against the quota or the cap. */
export function newSendRow(
  workspaceId: string,
  input: Pick<SendEmailInput, 'source' | 'tracking' | 'metadata'>,
  to: string,
  sender: SenderProfileRow,
  subject: string,
  key: string | null,
): SendRow {
  const now = nowIso();
  return {
    id: uuidv7(),
    workspace_id: workspaceId,
    idempotency_key: key,
    source: input.source,
    status: 'sending',
    to,
    from: fromEmail(sender),
    sender_profile_id: sender.id,
    subject,
    provider: null,
    provider_message_id: null,
    track_opens: input.tracking?.opens === true,
    track_clicks: input.tracking?.clicks === true,
    metadata: input.metadata ?? null,
    counted_month: null,
    counted_day: null,
    delivered_at: null,
    bounced_at: null,
    bounce_type: null,
    complained_at: null,
    opened_at: null,
    machine_open: null,
    clicked_at: null,
    clicked_url: null,
    created_at: now,
    updated_at: now,
  };
}

/** A reserve batch that failed on a full counter (see `guarded`): which one. */
const capsExceeded = (err: unknown) =>
  failedOn(err, guardOf(emailQuotaUsage.sends))
    ? EmailErrors.quotaExceeded()
    : failedOn(err, guardOf(emailWarmingUsage.sends))
      ? EmailErrors.warmingCapExceeded()
      : null;

const sendByKey = prepared((db) =>
  db
    .select()
    .from(emailSends)
    .where(and(eq(emailSends.workspace_id, sql.placeholder('ws')), eq(emailSends.idempotency_key, sql.placeholder('key'))))
    .limit(1),
);

/**
 * The gates after the claim, in the documented order: sender, suppression (2xx
 * `suppressed`, no provider call), monthly quota (402), daily warming cap
 * (429), pause (503), then the provider (502 `provider_error`). The quota and
 * cap are counted by guarded upserts in the batch that writes the send row, so
 * parallel sends never overshoot them; a refused hand-off gives the counts back.
 */
async function deliver(
  ctx: SendContext,
  input: SendEmailInput,
  to: string,
  prepared: PreparedEmail,
  progress: { handedOff: boolean },
): Promise<SendResult> {
  const { db, ws } = ctx;
  const key = input.idempotencyKey ?? null;
  // The platform list is in the control plane: its look-up runs alongside the shard's read batch.
  const [{ senders, suppression, existing }, onPlatform] = await Promise.all([
    readAll(db, {
      senders: senderCandidates(db, ws.id, input.senderProfileId),
      suppression: suppressedQuery(db, ws.id, to),
      existing: key !== null && sendByKey.in(db, { ws: ws.id, key }),
    }),
    onPlatformList(ctx.env, to),
  ]);

  // A crashed holder left its work in D1: a finished send is answered as it stands; one caught mid hand-off is handed over again
  // with the same provider key (counted already, and a provider that honours the key accepts it once).
  const prior = existing[0];
  if (prior && prior.status !== 'sending') return { record: serializeSend(prior), fresh: false };

  const sender = senders[0];
  const refusal = senderRefusal(input.senderProfileId, sender);
  if (refusal) throw refusal;

  const row: SendRow = prior ?? newSendRow(ws.id, input, to, sender, prepared.subject, key);

  if (!prior && (onPlatform || suppression[0]?.suppressed === 1)) {
    const suppressed = { ...row, status: 'suppressed' as const };
    await db.insert(emailSends).values(suppressed);
    return { record: serializeSend(suppressed), fresh: true };
  }

  const provider = configuredEmailProvider(ctx.env);
  const providerCtx = { env: ctx.env, db, workspaceId: ws.id };
  const html = await applyTracking(
    prepared.html,
    { opens: row.track_opens, clicks: row.track_clicks },
    { secret: ctx.env.TRACKING_SECRET, baseUrl: ctx.baseUrl, workspaceId: ws.id, sendId: row.id },
  );
  const message = {
    from: mailbox(sender.from_name, row.from!),
    to,
    replyTo: input.replyTo ?? sender.reply_to,
    subject: prepared.subject,
    html,
    text: prepared.text,
    headers: prepared.headers,
    ...(input.attachments?.length ? { attachments: input.attachments } : {}),
    workspaceId: ws.id,
    sendId: row.id,
  };
  const messageKey = await providerKey(ws.id, key, row.id);

  if (!prior) {
    // A provider whose hand-off is a D1 write records the message in the batch that counts and writes the send, already `sent`.
    const handOff = provider.handOffInBatch?.(providerCtx, message, messageKey) ?? null;
    const sent = await reserve(ctx, row, handOff && { ...handOff, provider: provider.name });
    if (sent) {
      progress.handedOff = true;
      return { record: serializeSend(sent), fresh: true };
    }
  }

  progress.handedOff = true;
  let messageId: string;
  try {
    ({ messageId } = await provider.send(providerCtx, message, messageKey));
  } catch (err) {
    if (!(err instanceof ProviderRejected)) throw err;
    await giveBack(ctx, row);
    progress.handedOff = false;
    throw EmailErrors.providerError({ detail: err.message });
  }
  const sent = { ...row, status: 'sent' as const, provider: provider.name, provider_message_id: messageId, updated_at: nowIso() };
  await db
    .update(emailSends)
    .set({ status: 'sent', provider: provider.name, provider_message_id: messageId, updated_at: sent.updated_at })
    .where(and(eq(emailSends.workspace_id, ws.id), eq(emailSends.id, row.id)));
  return { record: serializeSend(sent), fresh: !prior };
}

/**
 * The provider's idempotency key: derived from (workspace, key) alone, so every
 * attempt of one send (a recovering retry included) carries the same one; long
 * keys are hashed to fit providers' limits. Sends without a key use the send id.
 */
export async function providerKey(workspaceId: string, key: string | null, sendId: string): Promise<string> {
  if (key === null) return `${workspaceId}:send:${sendId}`;
  const plain = `${workspaceId}:${key}`;
  return plain.length <= 200 && !/[^\x21-\x7e]/.test(key) ? plain : `${workspaceId}:sha256:${await sha256Hex(key)}`;
}

/**
 * Counts the send against the quota and the cap and writes its row, in one batch (a full counter
 * fails it: 402 / 429). With a batched hand-off the message is recorded in the same batch and the
 * row is written `sent` with the provider's message id, which is returned; otherwise the row is
 * written `sending` for the provider call that follows, and null is returned.
 */
async function reserve(ctx: SendContext, row: SendRow, handOff: (BatchedHandOff & { provider: string }) | null): Promise<SendRow | null> {
  const { db, ws } = ctx;
  const { monthly_quota: quota, daily_warming_cap: cap, paused } = ctx.ws.email;
  const month = row.created_at.slice(0, 7);
  const day = row.created_at.slice(0, 10);
  const counted = { ...row, counted_month: quota != null ? month : null, counted_day: cap != null ? day : null };
  if (paused) throw await pausedRefusal(ctx, month, day);
  const statements: Statement[] = [];
  if (quota != null) statements.push(countQuota.in(db, { workspace_id: ws.id, month, quota }));
  if (cap != null) statements.push(countWarming.in(db, { workspace_id: ws.id, day, cap }));
  if (handOff) statements.push(...handOff.statements);
  statements.push(insertSend.in(db, handOff ? { ...counted, status: 'sent', provider: handOff.provider, provider_message_id: null } : counted));
  // With a hand-off, the row takes the message id its provider's statement recorded.
  const recordMessageId = handOff
    ? rawAll<{ id: string }>(
        db,
        sql`UPDATE email_sends SET provider_message_id = ${handOff.messageId} WHERE workspace_id = ${ws.id} AND id = ${row.id} RETURNING provider_message_id AS id`,
      )
    : null;
  let written: { id: string }[] = [];
  try {
    if (recordMessageId) ({ written } = await writeThenRead(db, statements, { written: recordMessageId }));
    else await runBatch(db, statements);
  } catch (err) {
    throw capsExceeded(err) ?? err;
  }
  Object.assign(row, counted);
  if (!handOff) return null;
  return { ...counted, status: 'sent', provider: handOff.provider, provider_message_id: written[0].id };
}

/** The monthly counter, raised only below the quota (a NULL fails the batch: `email_quota_usage.sends`). */
const countQuota = preparedSql('run', () => {
  const quota = sql.placeholder('quota');
  return sql`INSERT INTO email_quota_usage (workspace_id, month, sends) VALUES (${sql.placeholder('workspace_id')}, ${sql.placeholder('month')}, CASE WHEN ${quota} > 0 THEN 1 END)
    ON CONFLICT (workspace_id, month) DO UPDATE SET sends = CASE WHEN sends < ${quota} THEN sends + 1 END`;
});

/** The daily warming counter, likewise below the cap (`email_warming_usage.sends`). */
const countWarming = preparedSql('run', () => {
  const cap = sql.placeholder('cap');
  return sql`INSERT INTO email_warming_usage (workspace_id, day, sends) VALUES (${sql.placeholder('workspace_id')}, ${sql.placeholder('day')}, CASE WHEN ${cap} > 0 THEN 1 END)
    ON CONFLICT (workspace_id, day) DO UPDATE SET sends = CASE WHEN sends < ${cap} THEN sends + 1 END`;
});

const insertSend = preparedInsert(emailSends);

/** A paused workspace refuses every send; a full quota or cap is named first, in the documented gate order. */
export async function pausedRefusal(ctx: ServiceContext, month: string, day: string): Promise<ApiError> {
  const { db, ws } = ctx;
  const { monthly_quota: quota, daily_warming_cap: cap } = ws.email;
  const [usage] = await rawAll<{ month_sends: number | null; day_sends: number | null }>(
    db,
    sql`SELECT (SELECT sends FROM email_quota_usage WHERE workspace_id = ${ws.id} AND month = ${month}) AS month_sends,
      (SELECT sends FROM email_warming_usage WHERE workspace_id = ${ws.id} AND day = ${day}) AS day_sends`,
  );
  if (quota != null && (usage.month_sends ?? 0) >= quota) return EmailErrors.quotaExceeded();
  if (cap != null && (usage.day_sends ?? 0) >= cap) return EmailErrors.warmingCapExceeded();
  return EmailErrors.workspacePaused();
}

/** A refused hand-off: the send row goes and its counts come back, in one batch. */
async function giveBack(ctx: SendContext, row: SendRow): Promise<void> {
  const { db, ws } = ctx;
  const statements: Statement[] = [db.delete(emailSends).where(and(eq(emailSends.workspace_id, ws.id), eq(emailSends.id, row.id)))];
  if (row.counted_month)
    statements.push(
      rawRun(db, sql`UPDATE email_quota_usage SET sends = max(sends - 1, 0) WHERE workspace_id = ${ws.id} AND month = ${row.counted_month}`),
    );
  if (row.counted_day)
    statements.push(
      rawRun(db, sql`UPDATE email_warming_usage SET sends = max(sends - 1, 0) WHERE workspace_id = ${ws.id} AND day = ${row.counted_day}`),
    );
  await runBatch(db, statements);
}
