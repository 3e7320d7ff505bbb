import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { ApiError } from '../../platform/errors';
import { consentRow, contactIdentityColumns, contactIdentityJoin, setConsent } from '../contacts';
import { catchupSlot } from './cadence';
import { newUnsubscribeToken } from '../content';
import { findNewsletter } from './service';
import { newsletters, newsletterSubscriptions } from './schema';

type NewsletterRow = typeof newsletters.$inferSelect;
type SubscriptionRow = typeof newsletterSubscriptions.$inferSelect;

export function serializeSubscription(s: SubscriptionRow) {
  return {
    id: s.id,
    newsletter_id: s.newsletterId,
    contact_id: s.contactId,
    status: s.status,
    last_issue_number: s.cursor,
    next_catchup_at: s.nextCatchupAt,
    source: s.source,
    subscribed_at: s.subscribedAt,
    unsubscribed_at: s.unsubscribedAt,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/**
 * Where a (re)starting subscriber's cursor goes, by the newsletter's
 * `start_policy`: `next_issue` is caught up at the latest published number;
 * `latest_issue` one before it (the newest issue goes out on the next sweep);
 * `first_issue` before the first issue, walking the back-issues at the
 * catch-up cadence (`first_send_mode`: the first one now or at the next slot).
 */
export function startingPoint(n: NewsletterRow, now: Date, timeZone: string): { cursor: number; nextCatchupAt: string | null } {
  const last = n.nextIssueNumber - 1;
  const before = n.startIssueNumber - 1;
  if (n.startPolicy === 'next_issue') return { cursor: Math.max(last, before), nextCatchupAt: null };
  if (n.startPolicy === 'latest_issue') return { cursor: Math.max(last - 1, before), nextCatchupAt: null };
  if (last - before <= 1) return { cursor: before, nextCatchupAt: null };
  return { cursor: before, nextCatchupAt: n.firstSendMode === 'immediate' ? now.toISOString() : catchupSlot(now, 0, n.catchupSendTime, timeZone) };
}

const DAY_MS = 86_400_000;

/**
 * Subscribes a contact (201), or answers an active subscription as is (200).
 * An ended subscription comes back: within the newsletter's
 * `remember_window_days` it resumes its cursor, otherwise it restarts per the
 * start policy. The unique (newsletter, contact) index settles parallel calls.
 */
export async function subscribeContact(
  ctx: ServiceContext,
  newsletterId: string,
  contactId: string,
  source: string,
): Promise<{ subscription: ReturnType<typeof serializeSubscription>; created: boolean }> {
  const n = await findNewsletter(ctx, newsletterId);
  const { id } = await consentRow(ctx, contactId.toLowerCase());
  const now = new Date();
  const at = now.toISOString();
  const start = startingPoint(n, now, ctx.ws.timezone);
  const inserted = await ctx.db
    .insert(newsletterSubscriptions)
    .values({
      id: uuidv7(),
      workspaceId: ctx.ws.id,
      newsletterId: n.id,
      contactId: id,
      status: 'active',
      cursor: start.cursor,
      nextCatchupAt: start.nextCatchupAt,
      unsubscribeToken: newUnsubscribeToken(ctx.ws.id, 'newsletter'),
      source,
      subscribedAt: at,
      unsubscribedAt: null,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoNothing()
    .returning();
  if (inserted.length) return { subscription: serializeSubscription(inserted[0]), created: true };
  const remembered = new Date(now.getTime() - n.rememberWindowDays * DAY_MS).toISOString();
  const [revived] = await ctx.db
    .update(newsletterSubscriptions)
    .set({
      status: 'active',
      cursor: sql`CASE WHEN unsubscribed_at >= ${remembered} THEN cursor ELSE ${start.cursor} END`,
      nextCatchupAt: sql`CASE WHEN unsubscribed_at >= ${remembered} THEN (CASE WHEN cursor < ${n.nextIssueNumber - 2} THEN ${at} ELSE NULL END) ELSE ${start.nextCatchupAt} END`,
      subscribedAt: at,
      unsubscribedAt: null,
      source,
      updatedAt: at,
    })
    .where(
      and(
        eq(newsletterSubscriptions.newsletterId, n.id),
        eq(newsletterSubscriptions.contactId, id),
        eq(newsletterSubscriptions.status, 'unsubscribed'),
      ),
    )
    .returning();
  if (revived) return { subscription: serializeSubscription(revived), created: true };
  const [active] = await ctx.db
    .select()
    .from(newsletterSubscriptions)
    .where(and(eq(newsletterSubscriptions.newsletterId, n.id), eq(newsletterSubscriptions.contactId, id)))
    .limit(1);
  return { subscription: serializeSubscription(active), created: false };
}

const subscriptionByToken = (ctx: ServiceContext, token: string) =>
  ctx.db
    .select({
      s: newsletterSubscriptions,
      name: newsletters.name,
      senderProfileId: newsletters.senderProfileId,
      email: contactIdentityColumns.contactEmail,
    })
    .from(newsletterSubscriptions)
    .innerJoin(newsletters, eq(newsletters.id, newsletterSubscriptions.newsletterId))
    .leftJoin(...contactIdentityJoin(newsletterSubscriptions.contactId, newsletterSubscriptions.workspaceId))
    .where(and(eq(newsletterSubscriptions.workspaceId, ctx.ws.id), eq(newsletterSubscriptions.unsubscribeToken, token)))
    .limit(1);

/** What an unsubscribe token stops, for the page that confirms it. */
export type UnsubscribeTarget = {
  /** What the recipient stops receiving: the newsletter's name. */
  name: string;
  /** The sender profile the email went out under (null: the workspace's default verified one). */
  senderProfileId: string | null;
  /** The address the email went to (the contact's current email). */
  email: string | null;
  /** Already unsubscribed: the page only says so. */
  unsubscribed: boolean;
};

/** What an unsubscribe token of a subscription stops (the confirmation page names it), or null for no such token. */
export async function newsletterOfToken(ctx: ServiceContext, token: string): Promise<UnsubscribeTarget | null> {
  const [row] = await subscriptionByToken(ctx, token);
  return row ? { name: row.name, senderProfileId: row.senderProfileId, email: row.email, unsubscribed: row.s.status === 'unsubscribed' } : null;
}

/**
 * Ends the subscription a one-click token names and records the email
 * unsubscribe in the consent ledger (source `newsletter_unsubscribe`). Idempotent:
 * an ended subscription answers as is. Null for an unknown token.
 */
export async function unsubscribeByToken(ctx: ServiceContext, token: string): Promise<{ name: string } | null> {
  const now = nowIso();
  const [row] = await subscriptionByToken(ctx, token);
  if (!row) return null;
  const [ended] = await ctx.db
    .update(newsletterSubscriptions)
    .set({ status: 'unsubscribed', unsubscribedAt: now, updatedAt: now })
    .where(and(eq(newsletterSubscriptions.id, row.s.id), eq(newsletterSubscriptions.status, 'active')))
    .returning({ id: newsletterSubscriptions.id });
  if (ended) {
    await setConsent(ctx, row.s.contactId, 'email', {
      state: 'unsubscribed',
      source: 'newsletter_unsubscribe',
      evidence: { newsletter_id: row.s.newsletterId },
    }).catch((err) => {
      // A complaint on record keeps consent sticky; the subscription still ends.
      if (!(err instanceof ApiError && err.status === 409)) throw err;
    });
  }
  return { name: row.name };
}
