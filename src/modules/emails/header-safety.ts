import type { z } from '../../platform/validation';

/**
 * One rule for every value that becomes a mail header, whoever sends the mail
 * (`POST /v1/emails`, email campaigns, newsletters, booking confirmations):
 *
 * - At write, a route refuses control characters (C0 with TAB, CR and LF, DEL
 *   and C1) in a value that becomes a header (`headerText`: subjects, meeting
 *   type names), and also `< > , @ "` in a sender display name
 *   (`displayName`), with the request-shape 400 of `POST /v1/emails`.
 * - At send, `sendEmail` and `sendEmailBatch` fold what reaches them (values
 *   stored before these rules, subjects rendered from contact fields): every
 *   run of control characters becomes one space (`foldHeaderText`), and the
 *   From header is one RFC 5322 mailbox whose display name is quoted when it
 *   holds anything but atom text (`mailbox`). A provider is never handed a
 *   line break, nor a From that names a second address.
 */
const CONTROL = /\p{Cc}/u;
/** Whether a value holds a control character (C0 with TAB, CR and LF, DEL and C1): never in a header. */
export const hasControl = (value: string) => CONTROL.test(value);
const CONTROL_RUNS = /\p{Cc}+/u;
const NOT_IN_DISPLAY_NAMES = /[<>,@"]/;

/** `schema` refusing control characters: `<field> must not contain line breaks or control characters`. */
export const headerText = (schema: z.ZodString, field: string) =>
  schema.refine((s) => !hasControl(s), { message: `${field} must not contain line breaks or control characters` });

/** A sender display name: `headerText`, and none of `< > , @ "` (which would read as, or hide, an address). */
export const displayName = (schema: z.ZodString, field: string) =>
  headerText(schema, field).refine((s) => !NOT_IN_DISPLAY_NAMES.test(s), { message: `${field} must not contain < > , @ or "` });

/** A header value as it goes out: each run of control characters (with the spaces around it) one space, trimmed. */
export const foldHeaderText = (value: string) =>
  value
    .split(CONTROL_RUNS)
    .map((part) => part.trim())
    .filter(Boolean)
    .join(' ');

/** RFC 5322 atom text and spaces (non-ASCII letters as RFC 6532 allows): a display name that needs no quotes. */
const PLAIN_PHRASE = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ \u00a0-\u{10ffff}]+$/u;

/** One addr-spec: no whitespace, control character, angle bracket, comma, quote or second `@`. */
const PLAIN_ADDRESS = /^[^\s\p{Cc}<>()[\]\\,;:@"]+@[^\s\p{Cc}<>()[\]\\,;:@"]+$/u;

export const isPlainAddress = (address: string) => PLAIN_ADDRESS.test(address);

/**
 * The From header of a sender: `Name <address>`, the name folded and, when it
 * holds specials (`.`, `(`, `"`, `<`, ...), quoted with `\` before `"` and `\`;
 * the bare address when no name is left. `address` is a plain one
 * (`isPlainAddress`, checked by the sender gate).
 */
export function mailbox(name: string, address: string): string {
  const phrase = foldHeaderText(name);
  if (!phrase) return address;
  return `${PLAIN_PHRASE.test(phrase) ? phrase : `"${phrase.replace(/["\\]/g, '\\$&')}"`} <${address}>`;
}
