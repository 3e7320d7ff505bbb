import { registerQueueHandler } from '../../queue';
import { registerDueCampaignExecutor } from '../../sweeps/campaign-schedules';
import { PAGE_KIND, SEND_KIND } from './campaigns';
import { executeDueWhatsAppCampaigns, handlePage, handleSend, redriveStaleCampaigns } from './fanout';

// WhatsApp campaigns: the fan-out's two message kinds on the send queue, and the due-campaign executor of `campaign-schedules`.
registerQueueHandler(PAGE_KIND, async (message, env) => {
  await handlePage(env, message.body as never);
  message.ack();
});
registerQueueHandler(SEND_KIND, async (message, env) => {
  await handleSend(env, message.body as never);
  message.ack();
});
registerDueCampaignExecutor('whatsapp_campaigns', async (env, db) => ({
  whatsapp_campaigns_started: await executeDueWhatsAppCampaigns(env, db),
  whatsapp_campaigns_redriven: await redriveStaleCampaigns(env, db),
}));
