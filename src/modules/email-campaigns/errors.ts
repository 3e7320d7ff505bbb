import { defineErrors } from '../../platform/errors';

/** Email campaigns, and the campaign codes WhatsApp campaigns answer too. */
export const EmailCampaignErrors = defineErrors('EmailCampaignErrors', {
  notFound: {
    status: 404,
    code: 'campaign_not_found',
    variants: { emailCampaign: 'Email campaign not found', whatsappExecution: 'Campaign not found' },
  },
  notEditable: {
    status: 409,
    code: 'campaign_not_editable',
    variants: {
      emailCampaign: 'The campaign is {status}; only draft or scheduled campaigns can be changed or launched',
      whatsappCampaign: 'The campaign is {status}; only draft or scheduled campaigns can be changed',
    },
  },
  incomplete: { status: 409, code: 'campaign_incomplete', message: 'The campaign cannot be launched without {missing}' },
  audienceNotFound: { status: 400, code: 'audience_not_found', message: 'audience_id does not name an audience of this workspace' },
  /** `audience_filters` is part of the body: a bad tree is a request-shape violation, its message repeated in `errors`. */
  invalidAudienceFilters: {
    status: 400,
    message: '{problem}',
    kind: 'request',
    fields: ['errors'],
    about: 'an invalid `audience_filters` tree: its filter message',
  },
});
