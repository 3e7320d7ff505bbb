/**
 * Personalization tokens: `[[field]]`, `[[field : fallback]]`,
 * `[[field | modifier(arg)]]` (fallback and several modifiers may combine:
 * `[[first_name : there | capitalize]]`). Compiled content keeps tokens as
 * they are; they are resolved per recipient at send time, HTML-escaped in the
 * HTML part.
 */
export const CONTACT_TOKEN_FIELDS = [
  'name',
  'first_name',
  'last_name',
  'email',
  'phone',
  'company_name',
  'job_title',
  'city',
  'country',
  'language',
] as const;
/** Filled by the sender, not the contact: the recipient's one-click unsubscribe page. */
export const SYSTEM_TOKEN_FIELDS = ['unsubscribe_url'] as const;

export const MODIFIERS = ['upper', 'lower', 'capitalize', 'title', 'trim', 'truncate', 'date'] as const;
type Modifier = { name: string; arg: string | null };
export type Token = { field: string; fallback: string | null; modifiers: Modifier[] };

/** `[[` then anything but brackets and line breaks, up to 300 characters, then `]]`. */
export const TOKEN_PATTERN = /\[\[([^[\]\r\n]{1,300})\]\]/g;
const FIELD = /^(?:custom_fields\.[A-Za-z0-9_\- .]{1,100}|[a-z_][a-z0-9_]{0,63})$/;
const MODIFIER = /^([a-z_]+)(?:\((.*)\))?$/;

/** Parses the inside of `[[...]]`; null when it is not token syntax at all. */
export function parseToken(inner: string): Token | null {
  const [head, ...mods] = inner.split('|');
  const colon = head.indexOf(':');
  const field = (colon >= 0 ? head.slice(0, colon) : head).trim();
  if (!FIELD.test(field)) return null;
  const fallback = colon >= 0 ? head.slice(colon + 1).trim() : null;
  const modifiers: Modifier[] = [];
  for (const raw of mods) {
    const m = MODIFIER.exec(raw.trim());
    if (!m) return null;
    modifiers.push({ name: m[1], arg: m[2] === undefined ? null : m[2].trim() });
  }
  return { field, fallback, modifiers };
}

const isKnownField = (field: string) =>
  field.startsWith('custom_fields.') ||
  (CONTACT_TOKEN_FIELDS as readonly string[]).includes(field) ||
  (SYSTEM_TOKEN_FIELDS as readonly string[]).includes(field);

/** Compile warnings for the tokens of one text: unknown fields, unknown or malformed modifiers. */
export function tokenWarnings(text: string, where: string): string[] {
  const warnings: string[] = [];
  for (const m of text.matchAll(TOKEN_PATTERN)) {
    const token = parseToken(m[1]);
    if (!token) {
      warnings.push(`${where}: "${m[0]}" is not a personalization token and is sent as written`);
      continue;
    }
    if (!isKnownField(token.field)) {
      warnings.push(
        `${where}: unknown personalization token "${token.field}" (known: ${CONTACT_TOKEN_FIELDS.join(', ')}, custom_fields.<key>); it renders its fallback or nothing`,
      );
    }
    for (const mod of token.modifiers) {
      const problem = modifierProblem(mod);
      if (problem) warnings.push(`${where}: ${problem} in "${m[0]}"; it is ignored`);
    }
  }
  return warnings;
}

function modifierProblem(mod: Modifier): string | null {
  if (!(MODIFIERS as readonly string[]).includes(mod.name)) return `unknown modifier "${mod.name}" (one of ${MODIFIERS.join(', ')})`;
  if (mod.name === 'truncate' && !(mod.arg && /^\d{1,4}$/.test(mod.arg) && Number(mod.arg) > 0))
    return 'truncate needs a positive length, e.g. truncate(20)';
  if (mod.name === 'date' && !mod.arg) return 'date needs a format, e.g. date(YYYY-MM-DD)';
  return null;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `YYYY`, `MM`, `DD`, `HH`, `mm`, `MMMM` (month name) over a date or date-time value, in UTC. */
function formatDate(value: string, format: string): string {
  const at = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(at.getTime())) return value;
  const pad = (n: number) => String(n).padStart(2, '0');
  const parts: Record<string, string> = {
    YYYY: String(at.getUTCFullYear()),
    MMMM: MONTHS[at.getUTCMonth()],
    MM: pad(at.getUTCMonth() + 1),
    DD: pad(at.getUTCDate()),
    HH: pad(at.getUTCHours()),
    mm: pad(at.getUTCMinutes()),
  };
  return format.replace(/YYYY|MMMM|MM|DD|HH|mm/g, (p) => parts[p]);
}

function applyModifier(value: string, mod: Modifier): string {
  if (modifierProblem(mod)) return value;
  switch (mod.name) {
    case 'upper':
      return value.toUpperCase();
    case 'lower':
      return value.toLowerCase();
    case 'capitalize':
      return value.charAt(0).toUpperCase() + value.slice(1);
    case 'title':
      return value.replace(/(^|\s)(\S)/g, (_, s: string, c: string) => s + c.toUpperCase());
    case 'trim':
      return value.trim();
    case 'truncate': {
      const n = Number(mod.arg);
      return value.length > n ? `${value.slice(0, n).trimEnd()}…` : value;
    }
    case 'date':
      return formatDate(value, mod.arg!);
    default:
      return value;
  }
}

/** The values a recipient's tokens resolve from: contact fields, `custom_fields.<key>`, system fields. */
export type TokenValues = (field: string) => string;

export function tokenValues(contact: Record<string, unknown>, system: Record<string, string> = {}): TokenValues {
  let custom: Record<string, unknown> | null = null;
  return (field) => {
    if (Object.hasOwn(system, field)) return system[field];
    if (field.startsWith('custom_fields.')) {
      const raw = contact.custom_fields;
      custom ??= typeof raw === 'string' ? (JSON.parse(raw || '{}') as Record<string, unknown>) : ((raw as Record<string, unknown>) ?? {});
      const key = field.slice('custom_fields.'.length);
      const v = Object.hasOwn(custom, key) ? custom[key] : null;
      return v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    }
    if (!(CONTACT_TOKEN_FIELDS as readonly string[]).includes(field)) return '';
    const v = contact[field];
    return v === null || v === undefined ? '' : String(v);
  };
}

export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const unescapeHtml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

function resolve(inner: string, values: TokenValues): string | null {
  const token = parseToken(inner);
  if (!token) return null;
  let value = values(token.field).trim();
  if (!value && token.fallback !== null) value = token.fallback;
  for (const mod of token.modifiers) value = applyModifier(value, mod);
  return value;
}

/** Resolves the tokens of compiled HTML (whose text is HTML-escaped): values are escaped in turn. */
export function renderHtmlTokens(html: string, values: TokenValues): string {
  return html.replace(TOKEN_PATTERN, (whole, inner: string) => {
    const value = resolve(unescapeHtml(inner), values);
    return value === null ? whole : escapeHtml(value);
  });
}

/** Resolves the tokens of plain text (the text part, a subject): line breaks become spaces when `singleLine`. */
export function renderTextTokens(text: string, values: TokenValues, singleLine = false): string {
  const out = text.replace(TOKEN_PATTERN, (whole, inner: string) => resolve(inner, values) ?? whole);
  return singleLine ? out.replace(/[\r\n]+/g, ' ') : out;
}
