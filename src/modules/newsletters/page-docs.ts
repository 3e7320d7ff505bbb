import { htmlPage, pathParams, publicEntry, publicRefusal, UNSUBSCRIBE_LIMIT, type PublicRegistry } from '../../platform/public-docs';

const archive = pathParams({ ws: 'The workspace id (`workspace_ref`)', slug: 'The newsletter `slug`' });
const archiveIssue = pathParams({ ws: 'The workspace id (`workspace_ref`)', slug: 'The newsletter `slug`', number: 'The `issue_number`' });
const token = pathParams({ token: 'The subscription unsubscribe token (only in the email it was sent with)' });

/** Documents the public newsletter archive and the one-click unsubscribe page. */
export function registerNewsletterPageDocs(registry: PublicRegistry) {
  registry.registerPath({
    ...publicEntry,
    method: 'get',
    path: '/n/{ws}/{slug}',
    operationId: 'getNewsletterArchivePage',
    summary: 'Public newsletter archive (HTML)',
    description:
      'Not an API route. While `archive_enabled`: the published issues with ' +
      '`include_in_archive: true`, newest first (never drafts, scheduled or hidden issues); with `archive_mode: full` each links to its page.',
    request: { params: archive },
    responses: { 200: htmlPage('The archive'), 404: htmlPage('Unknown workspace or newsletter, or the archive is off') },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'get',
    path: '/n/{ws}/{slug}/{number}',
    operationId: 'getNewsletterArchiveIssuePage',
    summary: 'One archived newsletter issue (HTML)',
    description: 'Not an API route: the compiled issue as a web page, personalization tokens at their fallbacks.',
    request: { params: archiveIssue },
    responses: { 200: htmlPage('The issue'), 404: htmlPage('Not in the archive') },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'get',
    path: '/u/{token}',
    operationId: 'getUnsubscribePage',
    summary: 'Unsubscribe page (HTML)',
    description: 'Not an API route: the `List-Unsubscribe` link of newsletter emails. Shows a confirmation button; opening it changes nothing.',
    request: { params: token },
    responses: { 200: htmlPage('The page'), 404: htmlPage('Unknown, altered or malformed token') },
  } as never);
  registry.registerPath({
    ...publicEntry,
    method: 'post',
    path: '/u/{token}',
    operationId: 'unsubscribeOneClick',
    summary: 'One-click unsubscribe (RFC 8058)',
    description:
      "The form post of the page and the mailbox provider's one-click POST (`List-Unsubscribe=One-Click`). " +
      'A newsletter token ends the subscription and records email consent `unsubscribed` (source `newsletter_unsubscribe`); ' +
      "a campaign email's token records email consent `unsubscribed` (source `campaign_unsubscribe`) and counts once on the campaign. " +
      'Repeating it is harmless.',
    request: { params: token },
    responses: { 200: htmlPage('Unsubscribed'), 404: htmlPage('Unknown token'), 429: publicRefusal(UNSUBSCRIBE_LIMIT) },
  } as never);
}
