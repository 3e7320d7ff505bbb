import { renderHtmlTokens, renderTextTokens, tokenValues } from './tokens';
import { unsubscribeHeaders, unsubscribeUrl } from './unsubscribe-links';

/**
 * One recipient's copy of compiled bulk email (campaigns, newsletter issues):
 * subject, HTML and text rendered with the contact's tokens, and the
 * recipient's own one-click unsubscribe link in `[[unsubscribe_url]]` and the
 * RFC 8058 headers.
 */
export function personalEmail(
  compiled: { subject: string; html: string; text: string | null },
  contact: Record<string, unknown>,
  unsubscribe: { baseUrl: string; token: string },
) {
  const link = unsubscribeUrl(unsubscribe.baseUrl, unsubscribe.token);
  const values = tokenValues(contact, { unsubscribe_url: link });
  return {
    subject: renderTextTokens(compiled.subject, values, true),
    html: renderHtmlTokens(compiled.html, values),
    text: compiled.text ? renderTextTokens(compiled.text, values) : undefined,
    headers: unsubscribeHeaders(link),
  };
}
