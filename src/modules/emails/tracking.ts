import { decodeHTMLAttribute } from 'entities';
import { isbot } from 'isbot';
import { base64url } from '../../platform/ids';
import { hasControl } from './header-safety';

/**
 * Open pixels and click redirects (docs/email.md "Tracking"), served by this service
 * under `/t/` and signed with `TRACKING_SECRET`: a token is the base64url JSON
 * payload, a dot and its base64url HMAC-SHA256. A token that does not verify
 * is unknown (404), so an altered one can never redirect anywhere else.
 */
export type TrackingPayload = { w: string; s: string; u?: string };

/** Links longer than this stay as written (their token would outgrow what mail clients keep). */
export const MAX_TRACKED_URL = 2048;

const encoder = new TextEncoder();

const hmacKey = (secret: string, usage: 'sign' | 'verify') =>
  crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Signs tokens with one imported key: every link and the pixel of a message share it. */
async function tokenSigner(secret: string): Promise<(payload: TrackingPayload) => Promise<string>> {
  const key = await hmacKey(secret, 'sign');
  return async (payload) => {
    const body = base64url(encoder.encode(JSON.stringify(payload)));
    const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(body));
    return `${body}.${base64url(new Uint8Array(mac))}`;
  };
}

export async function signToken(secret: string, payload: TrackingPayload): Promise<string> {
  return (await tokenSigner(secret))(payload);
}

/** The payload of a token signed with `secret`, or null (altered, truncated, foreign). */
export async function verifyToken(secret: string | undefined, token: string): Promise<TrackingPayload | null> {
  if (!secret || token.length > 8192) return null;
  const [body, mac, ...rest] = token.split('.');
  if (rest.length || !body || !mac) return null;
  const signature = fromBase64url(mac);
  const bytes = fromBase64url(body);
  if (!signature || !bytes) return null;
  if (!(await crypto.subtle.verify('HMAC', await hmacKey(secret, 'verify'), signature, encoder.encode(body)))) return null;
  try {
    const payload = JSON.parse(new TextDecoder().decode(bytes)) as TrackingPayload;
    return typeof payload.w === 'string' && typeof payload.s === 'string' ? payload : null;
  } catch {
    return null;
  }
}

/**
 * Whether an href is wrapped: absolute http(s), not over-long, free of control
 * characters (a line break or NUL in a link is never what a reader meant to
 * follow, so it is not signed). `mailto:`, anchors and relative links never are.
 */
export const isTrackableUrl = (url: string) => /^https?:\/\/[^\s]/i.test(url) && url.length <= MAX_TRACKED_URL && !hasControl(url);

/**
 * A signed URL as a `Location` value: every character outside printable ASCII
 * (controls, space, DEL, non-ASCII) becomes the percent escapes of its UTF-8
 * bytes, as a browser encodes what it follows; escapes already written stay.
 * A header value can then never break a line or fail to serialize.
 */
export function locationOf(url: string): string {
  let out = '';
  for (const ch of url) {
    const code = ch.codePointAt(0)!;
    if (code > 0x20 && code < 0x7f) out += ch;
    else for (const byte of encoder.encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export type TrackingOptions = { opens: boolean; clicks: boolean };
export type TrackingTarget = { secret: string | undefined; baseUrl: string; workspaceId: string; sendId: string };

/**
 * The HTML part with tracking applied: `clicks` wraps every trackable `<a href>`
 * (except this service's unsubscribe links) in a signed redirect, `opens` adds a 1x1 pixel at the end of the body. Without
 * a secret the HTML is returned unchanged (sent untracked, never failed). The
 * HTML is rewritten by the runtime's streaming HTML parser (HTMLRewriter), so
 * markup is never matched with regular expressions. The text part is never touched.
 */
export async function applyTracking(html: string, options: TrackingOptions, target: TrackingTarget): Promise<string> {
  const { secret } = target;
  if (!secret || (!options.opens && !options.clicks)) return html;
  const base = target.baseUrl.replace(/\/+$/, '');
  const ids = { w: target.workspaceId, s: target.sendId };
  const sign = await tokenSigner(secret);
  let rewriter = new HTMLRewriter();
  if (options.clicks) {
    // Tokens are signed asynchronously; HTMLRewriter awaits a handler's promise.
    rewriter = rewriter.on('a[href]', {
      async element(el) {
        const url = decodeHTMLAttribute(el.getAttribute('href') ?? '').trim();
        // The service's own unsubscribe links stay direct: a click must unsubscribe even where redirects are stripped.
        if (!isTrackableUrl(url) || url.startsWith(`${base}/u/`)) return;
        el.setAttribute('href', `${base}/t/c/${await sign({ ...ids, u: url })}`);
      },
    });
  }
  if (options.opens) {
    const pixel = `<img src="${base}/t/o/${await sign(ids)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0" />`;
    let placed = false;
    rewriter = rewriter
      .on('body', {
        element(el) {
          placed = true;
          el.onEndTag((end) => {
            end.before(pixel, { html: true });
          });
        },
      })
      .onDocument({
        end(end) {
          if (!placed) end.append(pixel, { html: true });
        },
      });
  }
  return rewriter.transform(new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } })).text();
}

/**
 * Mail scanners and prefetchers that fetch every image of a message on
 * arrival: their opens are `machine_open: true`. Generic bots come from the
 * maintained `isbot` list; the security gateways below announce themselves
 * with names it does not hold.
 */
const MAIL_SCANNERS = /barracuda|mimecast|proofpoint|symantec|messagelabs|forcepoint|trendmicro|sophos|fireeye|ironport|safelinks/i;

export function isMachineOpen(userAgent: string | undefined): boolean {
  if (!userAgent?.trim()) return true;
  return isbot(userAgent) || MAIL_SCANNERS.test(userAgent);
}

/** The smallest transparent GIF. */
export const PIXEL_GIF = Uint8Array.from(atob('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'), (c) => c.charCodeAt(0));
