export { campaignOfToken, unsubscribeCampaignRecipient } from './unsubscribe';
export { runDueEmailCampaigns } from './sweep';
export { EmailCampaignErrors } from './errors';
