import { defineErrors } from '../../platform/errors';

/** Newsletters and issues answer their own errors in the domain envelope (README "Errors"). */
export const NewsletterErrors = defineErrors('domain', {
  notFound: { status: 404, code: 'newsletter_not_found', message: 'Newsletter not found' },
  issueNotFound: { status: 404, code: 'issue_not_found', message: 'Newsletter issue not found' },
  senderNotFound: { status: 400, code: 'sender_profile_not_found', message: 'sender_profile_id does not name a sender profile of this workspace' },
  limitReached: {
    status: 403,
    code: 'PLAN_LIMIT_EXCEEDED',
    message: 'Newsletter limit reached: your plan allows max_newsletters {cap}',
    alwaysFramework: true,
  },
  duplicateName: { status: 409, code: 'duplicate_name', message: 'A newsletter named "{name}" already exists in this workspace' },
  noFreeSlug: { status: 409, code: 'duplicate_name', message: 'Could not find a free archive slug for this name; choose another name' },
  externalReferenceInUse: { status: 409, code: 'external_reference_in_use', message: 'external_reference belongs to an issue of another newsletter' },
  invalidStatusFilter: { status: 400, message: 'Invalid status: must be draft, scheduled or published', alwaysFramework: true },
  missingContent: {
    status: 409,
    code: 'issue_missing_content',
    message: 'The issue needs a subject and compiled content before it can be published or scheduled',
  },
  alreadyPublished: { status: 409, code: 'issue_already_published', message: 'The issue is already published' },
  invalidScheduledAt: { status: 400, code: 'invalid_scheduled_at', message: 'scheduled_at must be a future instant' },
  publishedNotScheduled: { status: 409, code: 'issue_not_scheduled', message: 'The issue is published, not scheduled' },
  notScheduled: { status: 409, code: 'issue_not_scheduled', message: 'The issue is not scheduled' },
  issuePublished: {
    status: 400,
    code: 'issue_published',
    message: 'Published issues cannot be deleted; hide one from the archive with include_in_archive: false',
  },
});
