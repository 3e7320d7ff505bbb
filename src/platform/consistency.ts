import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Bindings } from '../env';
import { httpError } from './errors';
import { rememberBookmark } from './rate-limit';
import { newerBookmark, openSession } from './shards';

/** Response header with the bookmark a request's data reflects; a request may send it back (e.g. from another key). */
export const BOOKMARK_HEADER = 'Bookmark';

/** D1 bookmarks: hex groups joined by dashes. */
const BOOKMARK_SHAPE = /^[0-9a-f]{1,32}(-[0-9a-f]{1,64}){1,8}$/i;

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

function sentBookmark(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  if (!BOOKMARK_SHAPE.test(header)) throw httpError(400, `Invalid ${BOOKMARK_HEADER} header: send back a value this API returned`);
  return header.toLowerCase();
}

/**
 * Whether the shards' D1 read replication is on (`D1_READ_REPLICATION=auto`,
 * set together with the databases' own `read_replication` mode). Off, every
 * request's session starts at the primary, which already holds every write.
 */
export const readReplicasOn = (env: Bindings) => env.D1_READ_REPLICATION === 'auto';

/**
 * The request's session on its workspace's shard, with read-your-writes per
 * API key. Writes run on the primary; with read replication on, reads may be
 * served by a nearby read replica, but one at least as new as the key's last
 * write (its bookmark comes from the key's rate limiter, which every request
 * calls anyway) or the `Bookmark` the client sent, and after a successful write
 * the key's bookmark is recorded before the answer leaves, so the key's next
 * read, from any isolate or location, sees the write. With it off, reads start
 * at the primary too and nothing needs recording.
 */
export const readYourWrites: MiddlewareHandler<AppEnv> = async (c, next) => {
  const read = isRead(c.req.method);
  const sent = read ? sentBookmark(c.req.header(BOOKMARK_HEADER)) : null;
  const replicas = readReplicasOn(c.env);
  const key = c.var.keyBookmark;
  const consistency = read && replicas ? ({ kind: 'after', bookmark: newerBookmark(key.bookmark, sent) } as const) : ({ kind: 'primary' } as const);
  const session = openSession(c.env, c.var.workspace.shard, consistency, c.var.admission);
  c.set('db', session.db);
  c.set('sessionBookmark', session.bookmark);
  await next();

  const bookmark = session.bookmark() ?? c.var.storedBookmark ?? null;
  if (!bookmark) return;
  c.res.headers.set(BOOKMARK_HEADER, bookmark);
  // Only a successful write moves the key's bookmark; one the key already holds needs no call.
  if (replicas && !read && c.res.status < 400 && newerBookmark(bookmark, key.bookmark) !== key.bookmark) {
    await rememberBookmark(c.env, key.subject, bookmark);
  }
};
