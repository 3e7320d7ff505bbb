export { emailCampaignContactRecords } from './contact-records';
export { campaignOfToken, unsubscribeCampaignRecipient } from './unsubscribe';
