import { and, eq, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { nowIso, type Db } from '../../platform/d1/db';
import { readAll } from '../../platform/d1/operation';
import { ApiError } from '../../platform/errors';
import { wroteFor } from '../../platform/d1/floors';
import { uuidv7 } from '../../platform/ids';
import { keptLinkOrigin } from '../../platform/public-base';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { controlDb, workspaceDb } from '../../platform/d1/shards';
import { emailEligiblePage } from '../contacts';
import { sendEmail } from '../emails';
import { getWorkspace, workspaceContext } from '../workspaces';
import { personalEmail } from '../content';
import { catchupSlot } from './cadence';
import { newsletterDeliveries, newsletterIssues, newsletters, newsletterSubscriptions } from './schema';
import { settledHere, workspaceIdOf } from '../../platform/d1/workspace-moves/settled';

export const DELIVERY_KIND = 'newsletter-deliveries';
/** Subscriptions advanced per sweep pass and shard; deliveries per queue message. */
export const SWEEP_PAGE = 200;
export const SEND_CHUNK = 25;

type Candidate = {
  id: string;
  workspace_id: string;
  newsletter_id: string;
  contact_id: string;
  cursor: number;
  next_catchup_at: string | null;
  last: number;
  catchup_interval_days: number;
  catchup_send_time: string;
  issue_id: string | null;
};

type DeliveryMessage = { kind: typeof DELIVERY_KIND; workspace_id: string; delivery_ids: string[] };

/**
 * One pass of `deliver-newsletters` over a shard: every active subscription
 * with a published issue past its cursor that is due (caught up: at once;
 * behind: at its `next_catchup_at`) gets a delivery row for the next issue
 * and its cursor advanced, in one batch per subscription that applies only
 * while the cursor is still the one read. The (subscription, issue) unique
 * index backs that up, so overlapping sweeps never deliver an issue twice.
 * New delivery rows go to the send queue in chunks.
 */
export async function deliverNewsletters(env: Bindings, db: Db, now = new Date()): Promise<{ newsletter_deliveries_queued: number }> {
  const at = now.toISOString();
  const candidates = await rawAll<Candidate>(
    db,
    sql`SELECT s.id, s.workspace_id, s.newsletter_id, s.contact_id, s.cursor, s.next_catchup_at, n.next_issue_number - 1 AS last,
        n.catchup_interval_days, n.catchup_send_time,
        (SELECT i.id FROM newsletter_issues i WHERE i.newsletter_id = s.newsletter_id AND i.issue_number = s.cursor + 1) AS issue_id
      FROM newsletter_subscriptions s JOIN newsletters n ON n.id = s.newsletter_id
      WHERE s.status = 'active' AND n.status = 'active' AND s.cursor < n.next_issue_number - 1
        AND (s.next_catchup_at IS NULL OR s.next_catchup_at <= ${at}) AND ${settledHere(workspaceIdOf('s'))}
      ORDER BY s.id LIMIT ${SWEEP_PAGE}`,
  );
  if (!candidates.length) return { newsletter_deliveries_queued: 0 };
  const zones = new Map<string, string>();
  const control = controlDb(env);
  const byWorkspace = new Map<string, string[]>();
  for (const c of candidates) {
    if (!c.issue_id) continue;
    if (!zones.has(c.workspace_id)) zones.set(c.workspace_id, (await getWorkspace(control, c.workspace_id)).timezone);
    const next = c.cursor + 1;
    const behind = c.next_catchup_at !== null;
    const nextCatchupAt = behind && next < c.last ? catchupSlot(now, c.catchup_interval_days, c.catchup_send_time, zones.get(c.workspace_id)!) : null;
    const deliveryId = uuidv7();
    const { inserted } = await readAll(db, {
      inserted: rawRun(
        db,
        sql`INSERT INTO newsletter_deliveries (id, workspace_id, newsletter_id, subscription_id, issue_id, contact_id, status, created_at, updated_at)
          SELECT ${deliveryId}, ${c.workspace_id}, ${c.newsletter_id}, ${c.id}, ${c.issue_id}, ${c.contact_id}, 'queued', ${at}, ${at}
          WHERE EXISTS (SELECT 1 FROM newsletter_subscriptions WHERE id = ${c.id} AND cursor = ${c.cursor} AND status = 'active')
          ON CONFLICT (subscription_id, issue_id) DO NOTHING`,
      ),
      advanced: db
        .update(newsletterSubscriptions)
        .set({ cursor: next, nextCatchupAt, updatedAt: at })
        .where(and(eq(newsletterSubscriptions.id, c.id), eq(newsletterSubscriptions.cursor, c.cursor), eq(newsletterSubscriptions.status, 'active'))),
    });
    if (inserted.meta.changes === 1) byWorkspace.set(c.workspace_id, [...(byWorkspace.get(c.workspace_id) ?? []), deliveryId]);
  }
  wroteFor(db, byWorkspace.keys());
  const messages: DeliveryMessage[] = [];
  for (const [workspaceId, ids] of byWorkspace) {
    for (let i = 0; i < ids.length; i += SEND_CHUNK)
      messages.push({ kind: DELIVERY_KIND, workspace_id: workspaceId, delivery_ids: ids.slice(i, i + SEND_CHUNK) });
  }
  for (let i = 0; i < messages.length; i += 100) await env.SEND_QUEUE.sendBatch(messages.slice(i, i + 100).map((m) => ({ body: m })));
  return { newsletter_deliveries_queued: messages.reduce((n, m) => n + m.delivery_ids.length, 0) };
}

/**
 * Sends queued deliveries through the one send path (source `newsletter`,
 * idempotency key per delivery, so a redelivered message never sends twice):
 * the contact must still pass the email send-eligibility baseline (consent,
 * suppressions, blocks), else the delivery is `skipped`. The message carries
 * the subscription's one-click unsubscribe (List-Unsubscribe headers and the
 * `[[unsubscribe_url]]` token) and tracking, at the issue's kept link origin
 * (else `PUBLIC_BASE_URL`; with neither the delivery is `failed` as
 * `no_link_origin`). A refused send (quota, pause, provider) is recorded as
 * `failed`; anything else is retried by the queue.
 */
export async function handleDeliveries(env: Bindings, body: DeliveryMessage): Promise<void> {
  const db = await workspaceDb(env, body.workspace_id);
  if (!db) return;
  const ctx = await workspaceContext(env, body.workspace_id);
  for (const id of body.delivery_ids) {
    const [row] = await db
      .select({ d: newsletterDeliveries, i: newsletterIssues, s: newsletterSubscriptions, n: newsletters })
      .from(newsletterDeliveries)
      .innerJoin(newsletterIssues, eq(newsletterIssues.id, newsletterDeliveries.issueId))
      .innerJoin(newsletterSubscriptions, eq(newsletterSubscriptions.id, newsletterDeliveries.subscriptionId))
      .innerJoin(newsletters, eq(newsletters.id, newsletterDeliveries.newsletterId))
      .where(and(eq(newsletterDeliveries.workspaceId, body.workspace_id), eq(newsletterDeliveries.id, id), eq(newsletterDeliveries.status, 'queued')))
      .limit(1);
    if (!row) continue;
    const settle = (status: 'sent' | 'skipped' | 'failed', extra: { sendId?: string; reason?: string }) =>
      db
        .update(newsletterDeliveries)
        .set({ status, sendId: extra.sendId ?? null, reason: extra.reason ?? null, updatedAt: nowIso() })
        .where(and(eq(newsletterDeliveries.id, id), eq(newsletterDeliveries.status, 'queued')));
    // The platform list is the send's to check (it answers `suppressed`).
    const [contact] = await emailEligiblePage(db, body.workspace_id, { extra: sql`c.id = ${row.d.contactId}`, listed: true }, { limit: 1 });
    if (!contact || row.s.status !== 'active' || !row.i.compiledHtml || !row.i.subject) {
      await settle('skipped', { reason: !contact ? 'not_eligible' : row.s.status !== 'active' ? 'unsubscribed' : 'no_content' });
      continue;
    }
    const baseUrl = keptLinkOrigin(env, row.i.linkOrigin);
    if (!baseUrl) {
      console.error('newsletter delivery without a link origin: set PUBLIC_BASE_URL', row.i.id);
      await settle('failed', { reason: 'no_link_origin' });
      continue;
    }
    try {
      const sent = await sendEmail(
        { ...ctx, env, baseUrl },
        {
          to: contact.email,
          message: personalEmail({ subject: row.i.subject, html: row.i.compiledHtml, text: row.i.plainText }, contact, {
            baseUrl,
            token: row.s.unsubscribeToken,
          }),
          senderProfileId: row.n.senderProfileId ?? undefined,
          idempotencyKey: `newsletter-delivery:${id}`,
          metadata: { newsletter_id: row.n.id, issue_id: row.i.id, issue_number: row.i.issueNumber },
          source: 'newsletter',
        },
      );
      await settle(sent.record.status === 'suppressed' ? 'skipped' : 'sent', {
        sendId: sent.record.id,
        reason: sent.record.status === 'suppressed' ? 'suppressed' : undefined,
      });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 409) throw err;
      await settle('failed', { reason: err.code });
    }
  }
}

/** Scheduled issues whose time has come, across the shard (the publish sweep). */
export const dueIssues = (db: Db, now: string, limit: number) =>
  db
    .select({ id: newsletterIssues.id, workspaceId: newsletterIssues.workspaceId })
    .from(newsletterIssues)
    .where(and(eq(newsletterIssues.status, 'scheduled'), sql`${newsletterIssues.scheduledAt} <= ${now}`, settledHere(newsletterIssues.workspaceId)))
    .limit(limit);
