import { subscriberFooter } from './compile';

/** The part of the compiled styles the web rendering keeps: a narrow screen gets the full width. */
export const WEB_CONTENT_STYLES =
  '.issue-body table{border-collapse:collapse}.issue-body img{border:0;max-width:100%;height:auto}.issue-body .container{width:100% !important;max-width:600px}@media (max-width:620px){.issue-body .pad{padding-left:16px !important;padding-right:16px !important}}';

/** Any subscriber footer, also of content compiled before its wording changed. */
const FOOTER_ROW = /<tr><td class="pad"[^>]*><p[^>]*>You are receiving this email because you subscribed\.[\s\S]*?<\/tr>/g;
const PREHEADER = /^\s*<div style="display:none;[^"]*">[\s\S]*?<\/div>/;

/**
 * The web rendering of compiled email content (the public archive): the
 * email's body without the hidden preheader and the subscriber footer with its
 * unsubscribe link, to place inside a page's own layout. Tokens are left as
 * they are, for the caller to resolve.
 */
export function webContent(compiledHtml: string): { html: string; dir: 'ltr' | 'rtl' } {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(compiledHtml)?.[1] ?? compiledHtml;
  const dir = /<body[^>]*\bdir="rtl"/i.test(compiledHtml) ? 'rtl' : 'ltr';
  const html = body.replace(PREHEADER, '').split(subscriberFooter('left')).join('').split(subscriberFooter('right')).join('').replace(FOOTER_ROW, '');
  return { html, dir };
}
