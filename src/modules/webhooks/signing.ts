import { base64, randomToken } from '../../platform/ids';

const SECRET_PREFIX = 'whsec_';

/** `whsec_` + base64 of 32 random bytes; those bytes are the HMAC key. */
export const newEndpointSecret = () => SECRET_PREFIX + base64(randomToken(32));

function secretKeyBytes(secret: string): Uint8Array {
  const raw = atob(secret.slice(SECRET_PREFIX.length));
  return Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
}

/**
 * Standard Webhooks headers for one attempt: the id is the event id (the
 * receiver's dedup key) and the signature covers `id.timestamp.body`.
 */
export async function signatureHeaders(secret: string, eventId: string, body: string, now = Date.now()): Promise<Record<string, string>> {
  const timestamp = String(Math.floor(now / 1000));
  const key = await crypto.subtle.importKey('raw', secretKeyBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${eventId}.${timestamp}.${body}`));
  return {
    'webhook-id': eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${base64(new Uint8Array(mac))}`,
  };
}
