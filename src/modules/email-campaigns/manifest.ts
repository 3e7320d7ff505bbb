import type { ModuleManifest } from '../../platform/manifest';
import { countCampaignFact } from './counters';
import { handlePage, sendChunk } from './fanout';
import { PAGE_KIND, SEND_KIND, type SendMessage } from './launch';
import { emailCampaignRoutes } from './routes';
import { emailCampaignPersonalData } from './personal-data';

export const manifest: ModuleManifest = {
  name: 'email-campaigns',
  personalData: emailCampaignPersonalData,
  routes: [emailCampaignRoutes],
  // A campaign's fan-out: its page messages on the send queue, and the chunks earlier releases enqueued on their own.
  // Its due launches run in the `campaign-schedules` sweep (src/modules/whatsapp/sweep.ts).
  queueTasks: [
    { kind: PAGE_KIND, run: handlePage, inTurn: true },
    { kind: SEND_KIND, run: (env, body: SendMessage) => sendChunk(env, body, body.contact_ids) },
  ],
  featureGates: [{ pattern: /^\/v1\/email-campaigns(\/|$)/, feature: 'email_marketing' }],
  // Provider facts about campaign sends feed the campaign's counters.
  emailFactCounters: { campaign: countCampaignFact },
};
