import { registerQueueTask, registerQueueTaskInTurn } from '../../queue';
import { registerDueCampaignExecutor } from '../../sweeps/campaign-schedules';
import { PAGE_KIND, SEND_KIND } from './campaigns';
import { executeDueWhatsAppCampaigns, handlePage, redriveStaleCampaigns, sendChunk, type SendMessage } from './fanout';

// WhatsApp campaigns: the fan-out's page messages on the send queue (and chunks enqueued on their own by
// earlier releases), and the due-campaign executor of `campaign-schedules` (which also re-drives stalled fan-outs).
registerQueueTaskInTurn(PAGE_KIND, handlePage);
registerQueueTask(SEND_KIND, (env, body: SendMessage) => sendChunk(env, body, body.contact_ids));
registerDueCampaignExecutor('whatsapp_campaigns', async (env, db) => ({
  whatsapp_campaigns_started: await executeDueWhatsAppCampaigns(env, db),
  whatsapp_campaigns_redriven: await redriveStaleCampaigns(env, db),
}));
