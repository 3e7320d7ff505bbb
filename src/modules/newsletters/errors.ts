import { defineErrors } from '../../platform/errors';

/** Newsletters and their issues. */
export const NewsletterErrors = defineErrors('NewsletterErrors', {
  notFound: { status: 404, code: 'newsletter_not_found', message: 'Newsletter not found' },
  issueNotFound: { status: 404, code: 'issue_not_found', message: 'Newsletter issue not found' },
  externalReferenceInUse: { status: 409, code: 'external_reference_in_use', message: 'external_reference belongs to an issue of another newsletter' },
  invalidStatusFilter: { status: 400, message: 'Invalid status: must be draft, scheduled or published', kind: 'request' },
  missingContent: {
    status: 409,
    code: 'issue_missing_content',
    message: 'The issue needs a subject and compiled content before it can be published or scheduled',
  },
  alreadyPublished: { status: 409, code: 'issue_already_published', message: 'The issue is already published' },
  notScheduled: {
    status: 409,
    code: 'issue_not_scheduled',
    variants: { published: 'The issue is published, not scheduled', unscheduled: 'The issue is not scheduled' },
  },
  issuePublished: {
    status: 400,
    code: 'issue_published',
    message: 'Published issues cannot be deleted; hide one from the archive with include_in_archive: false',
  },
});
