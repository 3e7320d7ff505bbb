import type { Bindings } from '../src/env';

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
  '/bench/setup': async (_request, env) => {
    await env.DB.exec('CREATE TABLE IF NOT EXISTS bench_floor (id TEXT PRIMARY KEY, created_at TEXT NOT NULL)');
    return json({ ok: true });
  },
};
