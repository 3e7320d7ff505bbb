/**
 * The `unsafe_url` rules for webhook targets, applied at registration and again
 * before every delivery attempt. Workers has no DNS API, so only the URL's own
 * host is judged: literal addresses in every spelling, and reserved names. A
 * public name that resolves to a private address is the platform's to stop
 * (docs/webhooks.md, "Limits").
 */

type Cidr = [bytes: number[], prefixBits: number];

const V4_BLOCKED: Cidr[] = [
  [[0, 0, 0, 0], 8], // "this network"
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10], // CGNAT
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16],
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24],
  [[192, 0, 2, 0], 24],
  [[192, 88, 99, 0], 24],
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15],
  [[198, 51, 100, 0], 24],
  [[203, 0, 113, 0], 24],
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, includes broadcast
];

const V6_BLOCKED: Cidr[] = [
  [[0x01, 0x00], 64], // discard-only 100::/64
  [[0x20, 0x01, 0x00, 0x00], 23], // IETF protocol assignments, Teredo
  [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
  [[0x3f, 0xff], 20], // documentation
  [[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 96], // IPv4-translated ::ffff:0:0:0/96 (SIIT, never a public target)
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48], // local-use NAT64
  [[0xfc], 7], // unique local
  [[0xfe, 0x80], 10], // link-local
  [[0xfe, 0xc0], 10], // deprecated site-local
  [[0xff], 8], // multicast
];

const V4_MAPPED: Cidr = [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96];
const V4_COMPATIBLE: Cidr = [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 96]; // deprecated; also holds :: and ::1
const NAT64: Cidr = [[0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96];
const SIX_TO_FOUR: Cidr = [[0x20, 0x02], 16];

const RESERVED_NAME = /(^|\.)(localhost|local|localdomain|internal|home\.arpa)$/;

function inCidr(addr: number[], [prefix, bits]: Cidr): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((addr[i / 8] & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/** inet_aton spellings: 1 to 4 parts, each decimal, octal (leading 0) or hex (0x). */
export function parseIpv4(host: string): number[] | null {
  const parts = host.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return null;
  const values: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p.slice(1), 8);
    else if (/^\d+$/.test(p)) n = Number(p);
    else return null;
    values.push(n);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  const bytes = [...values];
  for (let i = 3 - values.length; i >= 0; i--) bytes.push(Math.floor(last / 256 ** i) % 256);
  return bytes;
}

export function parseIpv6(host: string): number[] | null {
  let text = host.toLowerCase();
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const b = /^(\d{1,3}\.){3}\d{1,3}$/.test(dotted[2]) ? parseIpv4(dotted[2]) : null;
    if (!b) return null;
    text = `${dotted[1]}${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = 8 - head.length - rest.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return bytes;
}

const v4Unsafe = (addr: number[]) => V4_BLOCKED.some((c) => inCidr(addr, c));

function v6Unsafe(addr: number[]): boolean {
  if (inCidr(addr, V4_MAPPED) || inCidr(addr, NAT64)) return v4Unsafe(addr.slice(12));
  if (inCidr(addr, V4_COMPATIBLE)) return true;
  if (inCidr(addr, SIX_TO_FOUR)) return v4Unsafe(addr.slice(2, 6));
  return V6_BLOCKED.some((c) => inCidr(addr, c));
}

export function parseAllowList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((h) =>
      h
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, ''),
    )
    .filter(Boolean);
}

export const MAX_URL_LENGTH = 2048;

const EMPTY_LABEL = 'url host must not have empty labels (a leading dot, ".." or more than one trailing dot)';

/**
 * Spellings that parsers read differently: the WHATWG parser (the runtime's)
 * treats `\` as `/`, drops tabs and newlines and accepts a missing `//`,
 * while others take a backslash or an `@` past the host as part of the
 * authority, so the same text names two hosts. None is needed to name a target.
 */
function ambiguousSpelling(raw: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u0020\u007f-\u009f]/.test(raw)) return 'url must not contain whitespace or control characters';
  if (raw.includes('\\')) return 'url must not contain backslashes';
  if (!/^https?:\/\//i.test(raw)) return 'url must start with http:// or https://';
  if (raw.includes('@')) return 'url must not contain "@"';
  return null;
}

/** Why a webhook target is unsafe, or null when it may be called. `allowHosts` is the local-testing escape hatch. */
export function unsafeUrlReason(raw: string, allowHosts: readonly string[] = []): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not a valid absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must use http or https';
  if (url.username || url.password) return 'url must not contain credentials';
  const ambiguous = ambiguousSpelling(raw);
  if (ambiguous) return ambiguous;
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  // One trailing dot is the fully qualified spelling; any other empty label (`a..b`, `.a`, `a..`) is
  // resolved differently by different resolvers, and hid literal addresses from the checks below.
  if (!host.includes(':') && host.split('.').includes('')) return host === '' ? 'url has no host' : EMPTY_LABEL;
  if (allowHosts.includes(host)) return null;
  if (host.includes(':')) {
    const v6 = parseIpv6(host.split('%')[0]);
    return !v6 || v6Unsafe(v6) ? 'url points at a reserved address' : null;
  }
  // A host whose last label is numeric is an IPv4 literal in some spelling; one that does not parse is refused.
  if (/^(0x[0-9a-f]*|\d+)$/i.test(host.split('.').pop()!)) {
    const v4 = parseIpv4(host);
    return !v4 || v4Unsafe(v4) ? 'url points at a reserved address' : null;
  }
  if (!host.includes('.') || RESERVED_NAME.test(host)) return 'url points at a reserved host name';
  return null;
}

/**
 * The URL as stored and echoed: the runtime parser's serialization, the exact
 * target deliveries go to (lower-case scheme and host, punycode, default port
 * dropped, dot segments resolved, percent-encoding applied). A checked URL
 * only: returns a refusal reason when the normalized form is unsafe or too long.
 */
export function normalizedWebhookUrl(raw: string, allowHosts: readonly string[] = []): { url: string } | { reason: string } {
  const reason = unsafeUrlReason(raw, allowHosts);
  if (reason) return { reason };
  const url = new URL(raw).href;
  if (url.length > MAX_URL_LENGTH) return { reason: `url must be at most ${MAX_URL_LENGTH} characters once normalized` };
  const normalizedReason = unsafeUrlReason(url, allowHosts);
  return normalizedReason ? { reason: normalizedReason } : { url };
}
