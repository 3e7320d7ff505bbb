import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guarded, nowIso, runBatch } from '../../platform/d1/db';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import { ApiError } from '../../platform/errors';
import { rawRun } from '../../platform/d1/raw-query';
import { contactIdentityColumns, contactIdentityJoin, setConsent } from '../contacts';
import { countUnsubscribe } from './counters';
import { emailCampaignRecipients, emailCampaigns } from './schema';

const recipientByToken = (ctx: ServiceContext, token: string) =>
  ctx.db
    .select({
      campaignId: emailCampaignRecipients.campaignId,
      contactId: emailCampaignRecipients.contactId,
      unsubscribedAt: emailCampaignRecipients.unsubscribedAt,
      senderProfileId: emailCampaigns.senderProfileId,
      email: contactIdentityColumns.contactEmail,
    })
    .from(emailCampaignRecipients)
    .leftJoin(emailCampaigns, and(eq(emailCampaigns.id, emailCampaignRecipients.campaignId), eq(emailCampaigns.workspaceId, ctx.ws.id)))
    .leftJoin(...contactIdentityJoin(emailCampaignRecipients.contactId, emailCampaignRecipients.workspaceId))
    .where(and(eq(emailCampaignRecipients.workspaceId, ctx.ws.id), eq(emailCampaignRecipients.unsubscribeToken, token)))
    .limit(1);

/** What a campaign email's unsubscribe token stops (the page names it, with the sender and the address), or null for no such token. */
export async function campaignOfToken(
  ctx: ServiceContext,
  token: string,
): Promise<{ name: string; senderProfileId: string | null; email: string | null; unsubscribed: boolean } | null> {
  const [row] = await recipientByToken(ctx, token);
  return row ? { name: 'marketing email', senderProfileId: row.senderProfileId, email: row.email, unsubscribed: row.unsubscribedAt !== null } : null;
}

/**
 * The one-click unsubscribe of a campaign email: the recipient row is marked
 * and the campaign's `unsubscribed` counter grows in one batch, guarded so a
 * repeated or parallel POST counts once; then the contact's email consent
 * becomes `unsubscribed` (an `unsubscribe` ledger row and
 * `contact.consent_changed` with action `unsubscribe`). Null for an unknown token.
 */
export async function unsubscribeCampaignRecipient(ctx: ServiceContext, token: string): Promise<{ name: string } | null> {
  const [row] = await recipientByToken(ctx, token);
  if (!row) return null;
  const now = nowIso();
  try {
    await runBatch(ctx.db, [
      rawRun(
        ctx.db,
        sql`UPDATE email_campaign_recipients SET unsubscribed_at = ${now}, updated_at = ${guarded(sql`unsubscribed_at IS NULL`, sql`${now}`)}
          WHERE workspace_id = ${ctx.ws.id} AND campaign_id = ${row.campaignId} AND contact_id = ${row.contactId}`,
      ),
      countUnsubscribe(ctx.db, ctx.ws.id, row.campaignId),
    ]);
  } catch (err) {
    if (!failedOn(err, guardOf(emailCampaignRecipients.updatedAt))) throw err;
  }
  await setConsent(ctx, row.contactId, 'email', {
    state: 'unsubscribed',
    source: 'campaign_unsubscribe',
    evidence: { campaign_id: row.campaignId },
  }).catch((err) => {
    // A complaint on record keeps consent sticky; the unsubscribe still counts.
    if (!(err instanceof ApiError && err.status === 409)) throw err;
  });
  return { name: `marketing email from ${ctx.ws.name}` };
}
