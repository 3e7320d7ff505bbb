import { sql } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import type { Bindings } from '../env';
import type { AppEnv } from './app-env';
import type { requestLog } from './schema';
import { nowIso, runBatch, type Statement } from './d1/db';
import { uuidv7 } from './ids';
import { rawRun } from './d1/raw-query';
import { shardDb } from './d1/shards';
import { requestIdOf } from './request-id';

type LogRow = typeof requestLog.$inferInsert;

/** Rows wait this long for company: under load a flush writes a few hundred rows in one statement. */
const FLUSH_AFTER_MS = 250;

/** Rows waiting for the next flush, by the shard of their workspace. */
let pending = new Map<string, LogRow[]>();
let scheduled = false;

/** Rows per statement: a row is at most about 3.5 KB (path and user agent are capped), so a chunk's JSON stays far below D1's 2 MB per value. */
const ROWS_PER_STATEMENT = 400;

/** One statement per 400 rows (the rows travel as one JSON parameter, unpacked by json_each), in one batch. */
async function writeShard(env: Bindings, shard: string, rows: LogRow[]): Promise<void> {
  const db = shardDb(env, shard);
  const statements: Statement[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    statements.push(
      rawRun(
        db,
        sql`INSERT INTO request_log (id, workspace_id, api_key_id, request_id, method, path, status, duration_ms, ip, user_agent, created_at)
          SELECT value ->> 'id', value ->> 'workspaceId', value ->> 'apiKeyId', value ->> 'requestId', value ->> 'method', value ->> 'path', value ->> 'status',
            value ->> 'durationMs', value ->> 'ip', value ->> 'userAgent', value ->> 'createdAt'
          FROM json_each(${JSON.stringify(rows.slice(i, i + ROWS_PER_STATEMENT))})`,
      ),
    );
  }
  if (statements.length) await runBatch(db, statements).catch((err: unknown) => console.error('request log write failed', shard, err));
}

/**
 * Rows from all requests an isolate serves within a short window are written
 * together: one D1 statement per shard and window instead of one per request,
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
 * Records every authenticated /v1 request that reached an endpoint (its
 * `X-Request-Id`, method, path, status, duration, IP, user agent; never
 * bodies), off the response path.
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
        requestId: requestIdOf(c),
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
