import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Bindings } from '../env';
import { requestLog } from '../modules/workspaces/schema';
import { nowIso } from './db';
import { insertGroups } from './bound-parameters';
import { uuidv7 } from './ids';
import { shardDb } from './shards';

type LogRow = typeof requestLog.$inferInsert;

const FLUSH_AFTER_MS = 50;

/** Rows waiting for the next flush, by the shard of their workspace. */
let pending = new Map<string, LogRow[]>();
let scheduled = false;

async function writeShard(env: Bindings, shard: string, rows: LogRow[]): Promise<void> {
  const db = shardDb(env, shard);
  const statements = insertGroups(requestLog, rows).map((group) => db.insert(requestLog).values(group));
  if (statements.length === 0) return;
  const [first, ...rest] = statements;
  await db.batch([first, ...rest]).catch((err) => console.error('request log write failed', shard, err));
}

/**
 * Rows from all requests an isolate serves within a short window are written
 * together: one D1 round trip per shard and window instead of one per request,
 * always after the responses (waitUntil).
 */
async function flushSoon(env: Bindings): Promise<void> {
  await new Promise((r) => setTimeout(r, FLUSH_AFTER_MS));
  const byShard = pending;
  pending = new Map();
  scheduled = false;
  await Promise.all([...byShard].map(([shard, rows]) => writeShard(env, shard, rows)));
}

/**
 * Records every authenticated /v1 request that reached an endpoint (method,
 * path, status, duration, IP, user agent; never bodies), off the response path.
 */
export const logRequests: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  try {
    await next();
  } finally {
    const ws = c.get('workspace');
    if (ws && c.get('routeMatched') !== false) {
      const rows = pending.get(ws.shard) ?? [];
      pending.set(ws.shard, rows);
      rows.push({
        id: uuidv7(),
        workspaceId: ws.id,
        apiKeyId: c.get('apiKeyId') ?? null,
        method: c.req.method,
        path: c.req.path.slice(0, 2048),
        status: c.res.status,
        durationMs: Date.now() - started,
        ip: c.req.header('cf-connecting-ip') ?? null,
        userAgent: c.req.header('user-agent')?.slice(0, 1024) ?? null,
        createdAt: nowIso(),
      });
      if (!scheduled) {
        scheduled = true;
        c.executionCtx.waitUntil(flushSoon(c.env));
      }
    }
  }
};
