import type { Bindings } from '../src/env';
import { eventOutbox } from '../src/modules/events/schema';
import { dbFor } from '../src/platform/db';
import { publishCommitted } from '../src/platform/events';
import { uuidv7 } from '../src/platform/ids';

type BenchRoute = (request: Request, env: Bindings) => Promise<Response>;

const json = (body: unknown, status = 200) => Response.json(body, { status });

/**
 * The floors: what one D1 round trip costs with no authentication and no
 * framework work. Every measured route is reported as a multiple of these.
 */
export const benchRoutes: Record<string, BenchRoute> = {
  '/bench/floor/select': async (request, env) => {
    const id = new URL(request.url).searchParams.get('id') ?? '';
    const row = await env.DB.prepare('SELECT id, name FROM workspaces WHERE id = ?').bind(id).first();
    return json(row);
  },
  '/bench/floor/insert': async (_request, env) => {
    const id = crypto.randomUUID();
    await env.DB.prepare('INSERT INTO bench_floor (id, created_at) VALUES (?, ?)').bind(id, new Date().toISOString()).run();
    return json({ id }, 201);
  },
  /** Writes `count` outbox events and publishes them, as committed writes would: the delivery throughput source. */
  '/bench/emit': async (request, env) => {
    const { workspace_id: workspaceId, count } = (await request.json()) as { workspace_id: string; count: number };
    const db = dbFor(env.DB);
    const now = new Date().toISOString();
    const rows = Array.from({ length: count }, (_, i) => ({
      id: uuidv7(),
      workspaceId,
      type: 'contact.created' as const,
      data: { contact_id: crypto.randomUUID(), sequence: i },
      createdAt: now,
      enqueuedAt: null,
      attempts: 0,
    }));
    const inserts = [];
    for (let i = 0; i < rows.length; i += 10) inserts.push(db.insert(eventOutbox).values(rows.slice(i, i + 10)));
    if (inserts.length) await db.batch(inserts as [ (typeof inserts)[number], ...(typeof inserts)[number][] ]);
    await publishCommitted(env, rows.map((r) => r.id));
    return json({ emitted: rows.length }, 201);
  },
  '/bench/setup': async (_request, env) => {
    await env.DB.exec('CREATE TABLE IF NOT EXISTS bench_floor (id TEXT PRIMARY KEY, created_at TEXT NOT NULL)');
    return json({ ok: true });
  },
};
