/** Two lower-case hex digits per byte value: a table look-up per byte instead of formatting it. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

export function hex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]];
  return out;
}

/** Random bytes drawn from the system's generator a few kilobytes at a time: a write mints several ids, and each draw is a call out of the isolate. */
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let taken = 0;

function randomBytes(n: number): Uint8Array {
  if (taken + n > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    taken = 0;
  }
  taken += n;
  return pool.subarray(taken - n, taken);
}

/** UUIDv7 (RFC 9562): 48-bit unix ms timestamp, then random bits; time-ordered for index locality. */
export function uuidv7(now = Date.now()): string {
  const bytes = new Uint8Array(16);
  bytes.set(randomBytes(10), 6);
  let ts = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ts & 0xff;
    ts = Math.floor(ts / 256);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return uuidText(bytes);
}

/** 16 bytes in the 8-4-4-4-12 text form of a UUID. */
export function uuidText(bytes: Uint8Array): string {
  const h = hex(bytes.subarray(0, 16));
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function randomToken(byteLength: number): Uint8Array {
  const bytes = new Uint8Array(byteLength);
  crypto.getRandomValues(bytes);
  return bytes;
}

export function base64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export function base64url(bytes: Uint8Array): string {
  return base64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export async function sha256Hex(text: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}
