import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { acceptBookmark, BOOKMARK_HEADER, issueBookmark } from './bookmarks';
import { newerBookmark, raiseFloor, readFloor, readReplicasOn, withWriteFloors } from './floors';
import { openSession, type Consistency } from './shards';

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/**
 * The request's session on its workspace's shard, with read-your-writes per
 * workspace (./floors.ts). Writes run on the primary; with read replication on,
 * reads may be served by a nearby read replica, but one at least as new as the
 * workspace's floor (one call to its floor object) or the `Bookmark` the client
 * sent, whichever is newer; a floor that cannot be read sends the read to the
 * primary. A request that wrote raises the floor (one call) before its answer
 * leaves, so the next read of any key, operator route or page of the workspace,
 * from any isolate or location, sees the write. With replication off, reads start
 * at the primary too and no call is made. A sent `Bookmark` must be one this
 * service issued for the workspace's shard (./bookmarks.ts), else 400.
 */
export const readYourWrites: MiddlewareHandler<AppEnv> = async (c, next) => {
  const ws = c.var.workspace;
  const read = isRead(c.req.method);
  const sent = read ? await acceptBookmark(c.env, ws.shard, c.req.header(BOOKMARK_HEADER)) : null;
  const replicas = readReplicasOn(c.env);
  const session = openSession(
    c.env,
    ws.shard,
    ws.id,
    read && replicas ? await readConsistency(c.env, ws.id, sent) : { kind: 'primary' },
    c.var.admission,
  );
  c.set('db', session.db);
  c.set('sessionBookmark', session.bookmark);
  await next();

  const bookmark = session.bookmark() ?? c.var.storedBookmark ?? null;
  if (!bookmark) return;
  // A write refused by a move's fence wrote nothing, on a shard the workspace has left: its bookmark is no floor.
  if (replicas && session.wrote() && !c.var.fenced) await raiseFloor(c.env, ws.id, bookmark);
  c.res.headers.set(BOOKMARK_HEADER, await issueBookmark(c.env, ws.shard, bookmark));
};

async function readConsistency(env: AppEnv['Bindings'], workspaceId: string, sent: string | null): Promise<Consistency> {
  const floor = await readFloor(env, workspaceId);
  return floor === undefined ? { kind: 'primary' } : { kind: 'after', bookmark: newerBookmark(floor, sent) };
}

/**
 * Operator routes, hosted pages and provider webhooks: each request is one unit of
 * work whose writes raise their workspaces' floors before the answer leaves (`/v1`
 * requests do it themselves, above).
 */
export const recordWriteFloors: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.path.startsWith('/v1/') || !readReplicasOn(c.env)) return next();
  await withWriteFloors(c.env, async (env) => {
    c.env = env;
    await next();
  });
};
