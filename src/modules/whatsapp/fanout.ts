import { sql } from 'drizzle-orm';
import { nowIso, runBatch, type Db, type Statement } from '../../platform/d1/db';
import { controlDb } from '../../platform/d1/shards';
import { campaignFanout } from '../../platform/fanout/campaign-fanout';
import type { Channel, ClaimedChunk, Link, RecipientOutcome } from '../../platform/fanout/channel';
import { uuidv7 } from '../../platform/ids';
import type { Workspace } from '../../platform/workspace';
import { whatsappProvider, type SendOutcome } from '../../providers/whatsapp';
import { selectRecipientContacts, whatsappAudiencePage, type RecipientContact } from '../contacts';
import { getWorkspace } from '../workspaces';
import { audienceContactCondition } from '../audiences';
import { PAGE_KIND, type PageMessage } from './campaigns';
import { composeTemplateMessage } from './compose';
import { insertCampaignMessages, settleOutboundMany, upsertConversations } from './inbox';
import { isPositional } from './placeholders';
import { whatsappCampaignRecipients, whatsappCampaigns, type CampaignRow } from './schema';
import { selectCampaignTemplate, templateFrom, type Template } from './templates';
import { personalize } from './variables';

/** Recipients per page message, handed to the provider in chunks (`SEND_CHUNK`) at once. */
export const PAGE_SIZE = 200;

/** What a chunk reads beside its claim: the campaign's template and the claimed contacts. */
const chunkReads = (db: Db, link: Link<PageMessage>, contactIds: string[]) => ({
  template: selectCampaignTemplate(db, link.workspace_id, link.campaign_id),
  contacts: selectRecipientContacts(db, link.workspace_id, contactIds),
});
type ChunkReads = ReturnType<typeof chunkReads>;
type Prepared = { contactId: string; messageId?: string; message?: ReturnType<typeof composeTemplateMessage>; error?: string };

/** One recipient's message, re-checked against what may have changed since targeting, or why it is not sent. */
function prepare(campaign: CampaignRow, template: Template | null, contactId: string, contact: RecipientContact | undefined): Prepared {
  if (template?.status !== 'approved') return { contactId, error: 'The template is no longer approved' };
  if (!contact?.phone) return { contactId, error: 'The contact no longer exists or has no phone' };
  if (contact.block_state !== 'none' || contact.whatsapp_consent_state !== 'subscribed' || contact.blacklisted) {
    return { contactId, error: 'The contact is no longer reachable (consent, block or blacklist changed)' };
  }
  const { values, empty } = personalize(campaign.variables, contact);
  if (empty.length) return { contactId, error: `Variable(s) ${empty.map((n) => `{{${n}}}`).join(', ')} came out empty for this contact` };
  try {
    const message = composeTemplateMessage(template, contact.phone, {
      body_variables: template.placeholders.map((name) => ({
        type: 'text' as const,
        text: values[name],
        ...(isPositional(name) ? {} : { param_name: name }),
      })),
    });
    return { contactId, messageId: uuidv7(), message };
  } catch (err) {
    return { contactId, error: (err as Error).message };
  }
}

/**
 * A WhatsApp chunk, in four round trips whatever its size: the claim's batch carries the template
 * and the contacts; each claimed contact is re-checked and personalized; one batch records the
 * messages in the contacts' conversations; the provider takes the chunk at once; one batch settles
 * the messages with the recipients.
 */
async function sendMessages({
  env,
  db,
  link,
  campaign,
  claimed,
  reads,
  context,
  now,
  settle,
}: ClaimedChunk<CampaignRow, PageMessage, Workspace, ChunkReads>) {
  const template = templateFrom(reads.template);
  const byId = new Map(reads.contacts.map((c) => [c.id, c]));
  const prepared = claimed.map(({ contact_id }) => prepare(campaign, template, contact_id, byId.get(contact_id)));
  const sendable = prepared.filter((p) => p.message);
  let handed: SendOutcome[] = [];
  if (sendable.length) {
    const rows = sendable.map((p) => ({ id: p.messageId!, contactId: p.contactId, text: p.message!.renderedText }));
    await runBatch(db, [
      upsertConversations(
        db,
        link.workspace_id,
        rows.map((r) => r.contactId),
        now,
      ),
      insertCampaignMessages(db, { workspaceId: link.workspace_id, templateId: template!.id, campaignId: campaign.id, now }, rows),
    ]);
    handed = await whatsappProvider(env, db, context).sendTemplates(sendable.map((p) => p.message!));
  }
  const outcomeOf = new Map(sendable.map((p, i) => [p.contactId, handed[i]]));
  const done = nowIso();
  const outcomes = prepared.map((p): RecipientOutcome => {
    const outcome = outcomeOf.get(p.contactId) ?? { error: p.error! };
    return { contactId: p.contactId, ref: p.messageId ?? null, error: 'error' in outcome ? outcome.error.slice(0, 1000) : null };
  });
  const statements: Statement[] = [];
  if (sendable.length)
    statements.push(
      settleOutboundMany(
        db,
        link.workspace_id,
        sendable.map((p) => ({ id: p.messageId!, outcome: outcomeOf.get(p.contactId)! })),
        done,
      ),
    );
  await runBatch(db, [...statements, ...settle(outcomes, done)]);
}

/**
 * WhatsApp campaigns' channel of the campaign fan-out (src/platform/fanout): a page targets the
 * contacts of the campaign's audience and filters with WhatsApp consent (an audience deleted since
 * targets nobody more: the campaign ends with what it has); a campaign ends `completed`, or
 * `failed` when nothing could be sent.
 */
const whatsappChannel: Channel<CampaignRow, PageMessage, Workspace, ChunkReads> = {
  pageKind: PAGE_KIND,
  pageSize: PAGE_SIZE,
  campaigns: whatsappCampaigns,
  recipients: whatsappCampaignRecipients,
  running: 'running',
  ended: sql`(CASE WHEN sent > 0 THEN 'completed' ELSE 'failed' END)`,
  endedAt: whatsappCampaigns.completedAt,
  sentRef: whatsappCampaignRecipients.message_id,
  givenUp: 'No provider answer was recorded; not resent',
  recipientColumns: [],
  async eligible(_env, db, campaign, { after, limit }) {
    const extra = campaign.audienceId ? await audienceContactCondition(db, campaign.workspaceId, campaign.audienceId) : null;
    if (campaign.audienceId && !extra) return { page: [], ids: [] };
    const page = await whatsappAudiencePage(db, campaign.workspaceId, { filters: campaign.audienceFilters, extra, after, limit });
    return { page, ids: page.map((c) => c.id) };
  },
  redriven: () => ({}),
  chunkReads,
  chunkContext: (env, workspaceId) => getWorkspace(controlDb(env), workspaceId),
  send: sendMessages,
};

export const { handlePage, sendChunk, redriveStaleCampaigns } = campaignFanout(whatsappChannel);
