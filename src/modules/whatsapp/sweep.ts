import { registerQueueTask } from '../../queue';
import { registerDueCampaignExecutor } from '../../sweeps/campaign-schedules';
import { PAGE_KIND, SEND_KIND } from './campaigns';
import { executeDueWhatsAppCampaigns, handlePage, handleSend, redriveStaleCampaigns } from './fanout';

// WhatsApp campaigns: the fan-out's two message kinds on the send queue, and the due-campaign executor of `campaign-schedules`.
registerQueueTask(PAGE_KIND, handlePage);
registerQueueTask(SEND_KIND, handleSend);
registerDueCampaignExecutor('whatsapp_campaigns', async (env, db) => ({
  whatsapp_campaigns_started: await executeDueWhatsAppCampaigns(env, db),
  whatsapp_campaigns_redriven: await redriveStaleCampaigns(env, db),
}));
