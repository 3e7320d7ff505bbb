import { compile } from 'html-to-text';
import { EmailErrors } from './errors';
import { escapeHtml } from '../../platform/html';
import { foldHeaderText, hasControl } from './header-safety';
import { z } from '../../platform/validation';

/** The bounds of a transactional email (docs/email.md). */
export const HTML_MAX_BYTES = 500 * 1024;
export const TEXT_MAX_BYTES = 100 * 1024;
export const HEADER_VALUE_MAX = 1000;
export const METADATA_MAX_BYTES = 2048;
export const ALLOWED_HEADERS = ['List-Unsubscribe', 'List-Unsubscribe-Post'] as const;

export const utf8Bytes = (text: string) => new TextEncoder().encode(text).byteLength;

/** A message as a caller renders it; at least one of `html` and `text`. */
export type RenderedEmail = { subject: string; html?: string; text?: string; headers?: Record<string, unknown> };

/** Both parts, the missing one derived, and the headers in their canonical spelling. */
export type PreparedEmail = { subject: string; html: string; text: string; headers: Record<string, string> };

/** Plain text as HTML: escaped, line breaks kept. */
export const textToHtml = (text: string) => escapeHtml(text).replace(/\r\n|\r|\n/g, '<br>\n');

/** The converter built from the options once per isolate: building it (the selector decision tree) cost several times one conversion. */
let converter: ((html: string) => string) | null = null;

/** HTML as readable plain text (html-to-text: links keep their URL, tables and lists stay legible, images are dropped). */
export const htmlToText = (html: string) =>
  (converter ??= compile({
    wordwrap: 78,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    ],
  }))(html);

/**
 * `headers`: only `List-Unsubscribe` and `List-Unsubscribe-Post` (any case);
 * string values of at most 1000 characters without control characters. Any
 * other key or value answers 400 `validation_failed`.
 */
export function normalizeHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const canonical = ALLOWED_HEADERS.find((h) => h.toLowerCase() === name.toLowerCase());
    if (!canonical) throw EmailErrors.validationFailed.headerNotAllowed({ name: name.slice(0, 100), allowed: ALLOWED_HEADERS.join(' and ') });
    if (typeof value !== 'string') throw EmailErrors.validationFailed.headerNotString({ name: canonical });
    if (value.length > HEADER_VALUE_MAX) throw EmailErrors.validationFailed.headerTooLong({ name: canonical, max: HEADER_VALUE_MAX });
    if (hasControl(value)) throw EmailErrors.validationFailed.headerControl({ name: canonical });
    if (value.trim() === '') throw EmailErrors.validationFailed.headerEmpty({ name: canonical });
    out[canonical] = value;
  }
  return out;
}

/** Built once: a schema costs more to build than to check one address with. */
const ADDRESS = z.email();

/** The recipient: trimmed, lower-cased, a valid address of at most 320 characters; else 422 `invalid_recipient`. */
export function normalizeRecipient(raw: string): string {
  const to = raw.trim().toLowerCase();
  if (to.length === 0 || to.length > 320 || !ADDRESS.safeParse(to).success) {
    throw EmailErrors.invalidRecipient();
  }
  return to;
}

/** `metadata`: at most 2048 bytes serialized (400 `validation_failed`). */
export function checkMetadata(metadata: Record<string, unknown> | undefined): void {
  if (metadata !== undefined && utf8Bytes(JSON.stringify(metadata)) > METADATA_MAX_BYTES) {
    throw EmailErrors.validationFailed.metadataTooLarge({ max: METADATA_MAX_BYTES });
  }
}

/** Both parts of the message (400 `validation_failed` when neither is given), the subject folded onto one line. */
export function prepareEmail(input: RenderedEmail): PreparedEmail {
  const html = input.html ? input.html : undefined;
  const text = input.text ? input.text : undefined;
  if (html === undefined && text === undefined) throw EmailErrors.validationFailed.noContent();
  return {
    subject: foldHeaderText(input.subject),
    html: html ?? textToHtml(text!),
    text: text ?? htmlToText(html!),
    headers: normalizeHeaders(input.headers),
  };
}
