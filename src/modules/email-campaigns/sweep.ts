import { registerQueueTask, registerQueueTaskInTurn } from '../../queue';
import { registerDueCampaignExecutor } from '../../sweeps/campaign-schedules';
import { registerFactCounter } from '../emails';
import { countCampaignFact } from './counters';
import { handlePage, redriveStaleCampaigns, sendChunk } from './fanout';
import { launchDueCampaigns, PAGE_KIND, SEND_KIND, type SendMessage } from './launch';

// Email campaigns: the fan-out's page messages on the send queue (and chunks enqueued on their own
// by earlier releases), the due-campaign executor of `campaign-schedules` (which also re-drives
// stalled fan-outs), and the provider facts that feed the counters.
registerQueueTaskInTurn(PAGE_KIND, handlePage);
registerQueueTask(SEND_KIND, (env, body: SendMessage) => sendChunk(env, body, body.contact_ids));
registerDueCampaignExecutor('email_campaigns', async (env, db) => ({
  email_campaigns_started: await launchDueCampaigns(env, db),
  email_campaigns_redriven: await redriveStaleCampaigns(env, db),
}));
registerFactCounter('campaign', countCampaignFact);
