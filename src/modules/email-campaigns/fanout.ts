import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { campaignFanout } from '../../platform/fanout/campaign-fanout';
import type { Channel, ClaimedChunk, RecipientOutcome } from '../../platform/fanout/channel';
import { keptLinkOrigin } from '../../platform/public-base';
import { emailEligibleIds, emailEligiblePage, withoutPlatformListed } from '../contacts';
import { newUnsubscribeToken, personalEmail } from '../content';
import { sendEmailBatch, type BulkEmail, type BulkOutcome } from '../emails';
import { workspaceContext } from '../workspaces';
import { PAGE_KIND, type PageMessage } from './launch';
import { emailCampaignRecipients, emailCampaigns, type EmailCampaignRow } from './schema';
import { recipientNarrowing } from './service';

/** Recipients per page message, rendered and handed to the provider in chunks (`SEND_CHUNK`) at once. */
export const PAGE_SIZE = 500;

/**
 * An email chunk: each claimed contact re-checked against the eligibility baseline (consent can
 * change between page and send), rendered with its own tokens and unsubscribe link, and handed to
 * the bulk send path (source `campaign`, opens and clicks tracked), whose settle batch also settles
 * the recipients. A suppressed address settles the recipient `failed` as `suppressed`.
 */
async function sendEmails({ env, db, link, campaign, claimed, context, settle }: ClaimedChunk<EmailCampaignRow, PageMessage, ServiceContext>) {
  const ids = claimed.map((r) => r.contact_id);
  const narrowing = await recipientNarrowing(db, link.workspace_id, campaign);
  const inChunk = sql`c.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
  const contacts = await emailEligiblePage(
    db,
    link.workspace_id,
    { filters: narrowing.filters, extra: narrowing.extra ? sql`${narrowing.extra} AND ${inChunk}` : inChunk, listed: true },
    { limit: ids.length },
  );
  const byId = new Map(contacts.map((c) => [c.id, c]));
  const source = { subject: campaign.subject ?? '', html: campaign.compiledHtml ?? '', text: campaign.plainText };
  const emails: BulkEmail[] = [];
  const ineligible: BulkOutcome[] = [];
  for (const r of claimed) {
    const contact = byId.get(r.contact_id);
    if (!contact) ineligible.push({ ref: r.contact_id, status: 'failed', error: 'not_eligible' });
    else
      emails.push({
        ref: contact.id,
        to: contact.email,
        message: personalEmail(source, contact, { baseUrl: link.base_url, token: r.unsubscribe_token }),
      });
  }
  const outcomeOf = (o: BulkOutcome): RecipientOutcome => ({
    contactId: o.ref,
    ref: o.sendId ?? null,
    error: o.status === 'suppressed' ? 'suppressed' : (o.error ?? null),
  });
  await sendEmailBatch(
    { ...context, env, baseUrl: link.base_url },
    {
      senderProfileId: campaign.senderProfileId ?? undefined,
      tracking: { opens: true, clicks: true },
      metadata: { campaign_id: campaign.id },
      source: 'campaign',
    },
    emails,
    (outcomes) => settle([...ineligible, ...outcomes].map(outcomeOf), nowIso()),
  );
}

/**
 * Email campaigns' channel of the campaign fan-out (src/platform/fanout): a page targets the
 * eligible contacts less those on the platform list (one control-plane statement for the page),
 * each recipient written with its unsubscribe token; a campaign ends `sent`, or `failed` when
 * recipients were targeted and none could be handed to the provider. Its pages carry the origin of
 * the links, fixed at launch; the re-drive takes the origin the launch kept (else
 * `PUBLIC_BASE_URL`; with neither the campaign waits, logged).
 */
const emailChannel: Channel<EmailCampaignRow, PageMessage, ServiceContext> = {
  pageKind: PAGE_KIND,
  pageSize: PAGE_SIZE,
  campaigns: emailCampaigns,
  recipients: emailCampaignRecipients,
  running: 'sending',
  ended: sql`(CASE WHEN sent = 0 AND targeted > 0 THEN 'failed' ELSE 'sent' END)`,
  sentRef: emailCampaignRecipients.sendId,
  givenUp: 'no_provider_answer',
  recipientColumns: [{ column: emailCampaignRecipients.unsubscribeToken, value: (workspaceId) => newUnsubscribeToken(workspaceId, 'campaign') }],
  async eligible(env, db, campaign, page) {
    const eligible = await emailEligibleIds(db, campaign.workspaceId, await recipientNarrowing(db, campaign.workspaceId, campaign), page);
    return { page: eligible, ids: (await withoutPlatformListed(env, eligible)).map((c) => c.id) };
  },
  redriven(env, campaign) {
    const baseUrl = keptLinkOrigin(env, campaign.linkOrigin);
    if (!baseUrl) console.error('stalled campaign without a link origin waits: set PUBLIC_BASE_URL', campaign.id);
    return baseUrl ? { base_url: baseUrl } : null;
  },
  chunkReads: () => ({}),
  chunkContext: workspaceContext,
  send: sendEmails,
};

export const { handlePage, sendChunk, redriveStaleCampaigns } = campaignFanout(emailChannel);
