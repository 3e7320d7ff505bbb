import { registerQueueTask } from '../../queue';
import { registerDueCampaignExecutor } from '../../sweeps/campaign-schedules';
import { registerFactCounter } from '../emails/events';
import { countCampaignFact } from './counters';
import { handlePage, handleSend, redriveStaleCampaigns } from './fanout';
import { launchDueCampaigns, PAGE_KIND, SEND_KIND } from './launch';

// Email campaigns: the fan-out's two message kinds on the send queue, the due-campaign executor of
// `campaign-schedules` (which also re-drives stalled fan-outs), and the provider facts that feed the counters.
registerQueueTask(PAGE_KIND, handlePage);
registerQueueTask(SEND_KIND, handleSend);
registerDueCampaignExecutor('email_campaigns', async (env, db) => ({
  email_campaigns_started: await launchDueCampaigns(env, db),
  email_campaigns_redriven: await redriveStaleCampaigns(env, db),
}));
registerFactCounter('campaign', countCampaignFact);
