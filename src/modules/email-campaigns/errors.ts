import { defineErrors } from '../../platform/errors';

/** Email campaigns answer their own errors in the domain envelope (README "Errors"). */
export const EmailCampaignErrors = defineErrors('domain', {
  notFound: { status: 404, code: 'campaign_not_found', message: 'Email campaign not found' },
  notEditable: {
    status: 409,
    code: 'campaign_not_editable',
    message: 'The campaign is {status}; only draft or scheduled campaigns can be changed or launched',
  },
  incomplete: { status: 409, code: 'campaign_incomplete', message: 'The campaign cannot be launched without {missing}' },
  invalidScheduledAt: { status: 400, code: 'invalid_scheduled_at', message: 'scheduled_at must be a future instant' },
  senderNotFound: {
    status: 400,
    code: 'sender_profile_not_found',
    message: 'sender_profile_id does not name a sender profile of this workspace on a verified domain',
  },
  audienceNotFound: { status: 400, code: 'audience_not_found', message: 'audience_id does not name an audience of this workspace' },
  /** `audience_filters` is part of the body: a bad tree is a request-shape violation, its message repeated in `errors`. */
  invalidAudienceFilters: {
    status: 400,
    message: '{problem}',
    alwaysFramework: true,
    fields: ['errors'],
    about: 'an invalid `audience_filters` tree: its filter message',
  },
});
