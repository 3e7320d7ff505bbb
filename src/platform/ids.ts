/** Two lower-case hex digits per byte value: a table look-up per byte instead of formatting it. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

export function hex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]];
  return out;
}

/** Random bytes drawn from the system's generator a few kilobytes at a time: a write mints several ids, and each draw is a call out of the isolate. */
const pool = new Uint8Array(4096);
let taken = pool.length;

/** The offset in `pool` of `n` fresh random bytes. */
function take(n: number): number {
  if (taken + n > pool.length) {
    crypto.getRandomValues(pool);
    taken = 0;
  }
  taken += n;
  return taken - n;
}

/**
 * UUIDv7 (RFC 9562): 48-bit unix ms timestamp, then random bits; time-ordered for index locality.
 * Written straight from the pool and a table of hex pairs: no buffer per id (every request logs one).
 */
export function uuidv7(now = Date.now()): string {
  const at = take(10);
  const r = pool;
  const high = Math.floor(now / 0x1_0000_0000);
  const low = now >>> 0;
  return (
    HEX[(high >>> 8) & 0xff] +
    HEX[high & 0xff] +
    HEX[low >>> 24] +
    HEX[(low >>> 16) & 0xff] +
    '-' +
    HEX[(low >>> 8) & 0xff] +
    HEX[low & 0xff] +
    '-' +
    HEX[(r[at] & 0x0f) | 0x70] +
    HEX[r[at + 1]] +
    '-' +
    HEX[(r[at + 2] & 0x3f) | 0x80] +
    HEX[r[at + 3]] +
    '-' +
    HEX[r[at + 4]] +
    HEX[r[at + 5]] +
    HEX[r[at + 6]] +
    HEX[r[at + 7]] +
    HEX[r[at + 8]] +
    HEX[r[at + 9]]
  );
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
