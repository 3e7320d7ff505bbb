import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env';
import { requestLog } from '../modules/workspaces/schema';
import { nowIso } from './db';
import { uuidv7 } from './ids';

/**
 * Records every authenticated /v1 request that reached an endpoint, after the
 * response is built and off the response path (waitUntil). Never bodies.
 */
export const logRequests: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  try {
    await next();
  } finally {
    const ws = c.get('workspace');
    if (ws && c.get('routeMatched') !== false) {
      const row = {
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
      };
      c.executionCtx.waitUntil(
        c.var.db.insert(requestLog).values(row).run().catch((err) => console.error('request log write failed', err)),
      );
    }
  }
};
