import type { Bindings } from '../../env';
import { SharedErrors } from '../shared-errors';
import { hex } from '../ids';

/** Response header with the bookmark a request's data reflects; a read may send it back (another key, a webhook's receiver). */
export const BOOKMARK_HEADER = 'Bookmark';

/**
 * A `Bookmark` value: the D1 bookmark (hex groups joined by dashes), a dot, and the
 * HMAC-SHA256 of `<shard>:<D1 bookmark>` in lowercase hex. Only values this service
 * signed for the workspace's own shard verify, so a forged, garbled or foreign one
 * (another shard's) never reaches D1 as a session constraint.
 */
const SIGNED_SHAPE = /^([0-9a-f]{1,32}(?:-[0-9a-f]{1,64}){1,8})\.([0-9a-f]{64})$/;

/**
 * Without `BOOKMARK_SECRET` (local development, tests) this key signs: values still
 * carry their shard and garbled ones are still refused, but anyone who reads this
 * source could sign one, so deployments set the secret.
 */
const BUILT_IN_SECRET = 'workspace-api bookmarks: set BOOKMARK_SECRET';

const encoder = new TextEncoder();

const macKey = (env: Bindings, usage: 'sign' | 'verify') =>
  crypto.subtle.importKey('raw', encoder.encode(env.BOOKMARK_SECRET || BUILT_IN_SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);

const signed = (shard: string, bookmark: string) => encoder.encode(`${shard}:${bookmark}`);

/** The `Bookmark` value of a D1 bookmark of `shard`. */
export async function issueBookmark(env: Bindings, shard: string, bookmark: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', await macKey(env, 'sign'), signed(shard, bookmark));
  return `${bookmark}.${hex(new Uint8Array(mac))}`;
}

/** The D1 bookmark of a `Bookmark` value this service issued for `shard`, or null when none was sent; 400 for any other value. */
export async function acceptBookmark(env: Bindings, shard: string, header: string | undefined): Promise<string | null> {
  if (header === undefined || header === '') return null;
  const parts = SIGNED_SHAPE.exec(header);
  if (!parts) throw SharedErrors.invalidBookmark();
  const [, bookmark, mac] = parts;
  const macBytes = Uint8Array.from(mac.match(/../g)!, (pair) => parseInt(pair, 16));
  if (!(await crypto.subtle.verify('HMAC', await macKey(env, 'verify'), macBytes, signed(shard, bookmark)))) throw SharedErrors.invalidBookmark();
  return bookmark;
}
