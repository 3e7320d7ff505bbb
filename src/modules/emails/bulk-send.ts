import { sql, type SQL } from 'drizzle-orm';
import { nowIso, runBatch, type Statement } from '../../platform/d1/db';
import { writeThenRead } from '../../platform/d1/write-then-read';
import { ApiError } from '../../platform/errors';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { BATCH_MAX, type BatchOutcome, configuredEmailProvider, type EmailProvider, type KeyedEmail, ProviderRejected } from '../../providers/email';
import { senderCandidates, type SenderProfileRow } from '../sender-profiles';
import { platformListed, suppressedSql } from '../suppressions';
import { checkMetadata, normalizeRecipient, prepareEmail, type PreparedEmail, type RenderedEmail } from './content';
import { mailbox } from './header-safety';
import { newSendRow, pausedRefusal, providerKey, senderRefusal, type SendContext, type SendEmailInput, type SendRow } from './send';
import { EmailErrors } from './errors';
import { applyTracking } from './tracking';

/** What every message of one bulk send shares. */
export type BulkSendInput = Pick<SendEmailInput, 'senderProfileId' | 'tracking' | 'metadata' | 'source'>;

/** One recipient's message; `ref` is the caller's own id for it (a contact id). */
export type BulkEmail = { ref: string; to: string; message: RenderedEmail };

/** `sent` and `suppressed` carry the send row; `failed` carries the error code the one-message path would have answered. */
export type BulkOutcome = { ref: string; status: 'sent' | 'suppressed' | 'failed'; sendId?: string; error?: string };

const rowJson = (rows: SendRow[]) => JSON.stringify(rows.map((r) => ({ ...r, metadata: r.metadata === null ? null : JSON.stringify(r.metadata) })));

/** Inserts send rows from their JSON (D1 binds at most 100 parameters, so rows travel as one JSON array), only those before `room`. */
const insertRows = (ctx: SendContext, rows: SendRow[], room: SQL = sql`-1`) =>
  rawRun(
    ctx.db,
    sql`INSERT INTO email_sends (id, workspace_id, idempotency_key, source, status, "to", "from", sender_profile_id, subject, track_opens, track_clicks,
        metadata, counted_month, counted_day, created_at, updated_at)
      SELECT value ->> 'id', value ->> 'workspace_id', NULL, value ->> 'source', value ->> 'status', value ->> 'to', value ->> 'from', value ->> 'sender_profile_id',
        value ->> 'subject', value ->> 'track_opens', value ->> 'track_clicks', value ->> 'metadata', value ->> 'counted_month', value ->> 'counted_day',
        value ->> 'created_at', value ->> 'updated_at'
      FROM json_each(${rowJson(rows)}) WHERE ${room} < 0 OR key < ${room}`,
  );

/**
 * The one send path for many messages at once (campaign fan-out): the same
 * gates as `sendEmail` in the same order, paid once per batch instead of once
 * per message. One read batch (sender, suppressed addresses) with the platform
 * list's entries for the chunk read from the control plane beside it; one write batch
 * that writes the suppressed rows and as many `sending` rows as the monthly
 * quota and the daily warming cap still admit, counting them in the same
 * transaction (so parallel batches never overshoot); one provider call per
 * `BATCH_MAX` messages; one settle batch that records the provider ids, drops
 * refused rows and gives their counts back, together with the caller's own
 * `settle` statements. Nothing here retries a message: a crash after the
 * hand-off leaves rows `sending`, never a second email.
 */
export async function sendEmailBatch(
  ctx: SendContext,
  input: BulkSendInput,
  emails: BulkEmail[],
  settle: (outcomes: BulkOutcome[]) => Statement[],
): Promise<BulkOutcome[]> {
  const { db, ws } = ctx;
  checkMetadata(input.metadata);
  const outcomes = new Map<string, BulkOutcome>();
  const fail = (ref: string, error: string) => outcomes.set(ref, { ref, status: 'failed', error });
  const ready: { email: BulkEmail; to: string; prepared: PreparedEmail }[] = [];
  for (const email of emails) {
    try {
      ready.push({ email, to: normalizeRecipient(email.to), prepared: prepareEmail(email.message) });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      fail(email.ref, err.code);
    }
  }
  const finish = async () => {
    const list = emails.map((e) => outcomes.get(e.ref)!);
    await runBatch(db, settle(list));
    return list;
  };
  if (ready.length === 0) return finish();

  const addresses = ready.map((r) => r.to);
  // The chunk's platform-list entries come from the control plane in one statement, alongside the shard's read batch.
  const [[senders, suppressedRows], onPlatform] = (await Promise.all([
    runBatch(db, [
      senderCandidates(db, ws.id, input.senderProfileId),
      rawAll<{ email: string }>(
        db,
        sql`SELECT value AS email FROM json_each(${JSON.stringify(addresses)}) WHERE ${suppressedSql(sql`${ws.id}`, sql`value`)}`,
      ),
    ]),
    platformListed(ctx.env, addresses),
  ])) as [[SenderProfileRow[], { email: string }[]], Set<string>];
  const sender = senders[0];
  const now = nowIso();
  const month = now.slice(0, 7);
  const day = now.slice(0, 10);
  const refusal = senderRefusal(input.senderProfileId, sender) ?? (ws.email.paused ? await pausedRefusal(ctx, month, day) : null);
  if (refusal) {
    for (const r of ready) fail(r.email.ref, refusal.code);
    return finish();
  }

  const suppressed = new Set([...onPlatform, ...suppressedRows.map((r) => r.email)]);
  const { monthly_quota: quota, daily_warming_cap: cap } = ws.email;
  const held: SendRow[] = [];
  const sending: { row: SendRow; email: BulkEmail; prepared: PreparedEmail }[] = [];
  for (const { email, to, prepared } of ready) {
    const row = newSendRow(ws.id, input, to, sender, prepared.subject, null);
    if (suppressed.has(to)) {
      held.push({ ...row, status: 'suppressed' });
      outcomes.set(email.ref, { ref: email.ref, status: 'suppressed', sendId: row.id });
    } else {
      sending.push({ row: { ...row, counted_month: quota != null ? month : null, counted_day: cap != null ? day : null }, email, prepared });
    }
  }

  const admitted = await reserve(
    ctx,
    held,
    sending.map((s) => s.row),
    { month, day },
  );
  const handed = sending.filter((s) => admitted.ids.has(s.row.id));
  for (const s of sending) if (!admitted.ids.has(s.row.id)) fail(s.email.ref, admitted.refusal);

  const provider = configuredEmailProvider(ctx.env);
  const results = await handOff(ctx, provider, sender, handed);

  const accepted: { id: string; m: string }[] = [];
  const refused: SendRow[] = [];
  handed.forEach(({ row, email }, i) => {
    const result = results[i];
    if ('messageId' in result) {
      accepted.push({ id: row.id, m: result.messageId });
      outcomes.set(email.ref, { ref: email.ref, status: 'sent', sendId: row.id });
    } else {
      refused.push(row);
      fail(email.ref, 'provider_error');
    }
  });
  const list = emails.map((e) => outcomes.get(e.ref)!);
  await runBatch(db, [...recordHandOff(ctx, provider.name, accepted, refused), ...settle(list)]);
  return list;
}

/** The admitted messages, tracked and keyed, to the provider in calls of at most `BATCH_MAX`; a refused call refuses each of its messages. */
async function handOff(
  ctx: SendContext,
  provider: EmailProvider,
  sender: SenderProfileRow,
  handed: { row: SendRow; prepared: PreparedEmail }[],
): Promise<BatchOutcome[]> {
  const { ws } = ctx;
  const results: BatchOutcome[] = [];
  for (let i = 0; i < handed.length; i += BATCH_MAX) {
    const part = handed.slice(i, i + BATCH_MAX);
    const messages: KeyedEmail[] = await Promise.all(
      part.map(async ({ row, prepared }) => ({
        idempotencyKey: await providerKey(ws.id, null, row.id),
        message: {
          from: mailbox(sender.from_name, row.from!),
          to: row.to,
          replyTo: sender.reply_to,
          subject: prepared.subject,
          html: await applyTracking(
            prepared.html,
            { opens: row.track_opens, clicks: row.track_clicks },
            { secret: ctx.env.TRACKING_SECRET, baseUrl: ctx.baseUrl, workspaceId: ws.id, sendId: row.id },
          ),
          text: prepared.text,
          headers: prepared.headers,
          workspaceId: ws.id,
          sendId: row.id,
        },
      })),
    );
    try {
      results.push(...(await provider.sendBatch({ env: ctx.env, db: ctx.db, workspaceId: ws.id }, messages)));
    } catch (err) {
      if (!(err instanceof ProviderRejected)) throw err;
      results.push(...part.map(() => ({ rejected: err.message })));
    }
  }
  return results;
}

/**
 * The write batch before the hand-off: suppressed rows, then the `sending`
 * rows the quota and cap have room for (in order), then the counters raised by
 * exactly the rows written, then which rows those were.
 */
async function reserve(
  ctx: SendContext,
  held: SendRow[],
  rows: SendRow[],
  { month, day }: { month: string; day: string },
): Promise<{ ids: Set<string>; refusal: string }> {
  const { db, ws } = ctx;
  const { monthly_quota: quota, daily_warming_cap: cap } = ws.email;
  const used = (table: SQL, column: SQL, value: string) =>
    sql`coalesce((SELECT sends FROM ${table} WHERE workspace_id = ${ws.id} AND ${column} = ${value}), 0)`;
  const quotaRoom = quota != null ? sql`max(${quota} - ${used(sql`email_quota_usage`, sql`month`, month)}, 0)` : null;
  const capRoom = cap != null ? sql`max(${cap} - ${used(sql`email_warming_usage`, sql`day`, day)}, 0)` : null;
  const room = quotaRoom && capRoom ? sql`min(${quotaRoom}, ${capRoom})` : (quotaRoom ?? capRoom ?? sql`-1`);
  const ids = JSON.stringify(rows.map((r) => r.id));
  const written = sql`(SELECT count(*) FROM email_sends WHERE id IN (SELECT value FROM json_each(${ids})))`;
  const statements: Statement[] = [];
  if (held.length) statements.push(insertRows(ctx, held));
  if (rows.length) statements.push(insertRows(ctx, rows, room));
  if (rows.length && quota != null) {
    statements.push(
      rawRun(
        db,
        sql`INSERT INTO email_quota_usage (workspace_id, month, sends) VALUES (${ws.id}, ${month}, ${written}) ON CONFLICT (workspace_id, month) DO UPDATE SET sends = sends + excluded.sends`,
      ),
    );
  }
  if (rows.length && cap != null) {
    statements.push(
      rawRun(
        db,
        sql`INSERT INTO email_warming_usage (workspace_id, day, sends) VALUES (${ws.id}, ${day}, ${written}) ON CONFLICT (workspace_id, day) DO UPDATE SET sends = sends + excluded.sends`,
      ),
    );
  }
  const { admitted, usage } = await writeThenRead(db, statements, {
    admitted: rawAll<{ id: string }>(db, sql`SELECT id FROM email_sends WHERE id IN (SELECT value FROM json_each(${ids}))`),
    usage: rawAll<{ sends: number }>(db, sql`SELECT sends FROM email_quota_usage WHERE workspace_id = ${ws.id} AND month = ${month}`),
  });
  const monthFull = quota != null && (usage[0]?.sends ?? 0) >= quota;
  return { ids: new Set(admitted.map((r) => r.id)), refusal: (monthFull ? EmailErrors.quotaExceeded() : EmailErrors.warmingCapExceeded()).code };
}

/** After the hand-off: accepted rows become `sent` with the provider's id; refused rows go and give their counts back. */
function recordHandOff(ctx: SendContext, providerName: string, accepted: { id: string; m: string }[], refused: SendRow[]): Statement[] {
  const { db, ws } = ctx;
  const now = nowIso();
  const statements: Statement[] = [];
  if (accepted.length) {
    // The accepted list, materialized, drives the update by primary key: joined to json_each directly, the planner
    // walked every send of the workspace and matched each against the list, a cost growing with the workspace's history.
    statements.push(
      rawRun(
        db,
        sql`WITH accepted AS MATERIALIZED (SELECT value ->> 'id' AS id, value ->> 'm' AS m FROM json_each(${JSON.stringify(accepted)}))
          UPDATE email_sends SET status = 'sent', provider = ${providerName}, provider_message_id = accepted.m, updated_at = ${now}
          FROM accepted WHERE email_sends.id = accepted.id AND email_sends.workspace_id = ${ws.id}`,
      ),
    );
  }
  if (refused.length) {
    const ids = JSON.stringify(refused.map((r) => r.id));
    statements.push(rawRun(db, sql`DELETE FROM email_sends WHERE workspace_id = ${ws.id} AND id IN (SELECT value FROM json_each(${ids}))`));
    const { counted_month: month, counted_day: day } = refused[0];
    if (month)
      statements.push(
        rawRun(db, sql`UPDATE email_quota_usage SET sends = max(sends - ${refused.length}, 0) WHERE workspace_id = ${ws.id} AND month = ${month}`),
      );
    if (day)
      statements.push(
        rawRun(db, sql`UPDATE email_warming_usage SET sends = max(sends - ${refused.length}, 0) WHERE workspace_id = ${ws.id} AND day = ${day}`),
      );
  }
  return statements;
}
