import { defineErrors } from '../../platform/errors';

/** A sender profile named by a send, a campaign or a newsletter. */
export const SenderProfileErrors = defineErrors('SenderProfileErrors', {
  notFound: {
    status: 400,
    code: 'sender_profile_not_found',
    variants: {
      // A transactional send names the profile itself: the contract answers 404 there, 400 where a record's field names it.
      email: { status: 404, message: 'Sender profile not found' },
      emailCampaign: 'sender_profile_id does not name a sender profile of this workspace on a verified domain',
      newsletter: 'sender_profile_id does not name a sender profile of this workspace',
    },
  },
});
