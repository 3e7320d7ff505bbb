import { sql } from 'drizzle-orm';
import { Hono, type MiddlewareHandler } from 'hono';
import { V1_MIDDLEWARE } from '../src/app';
import type { Bindings } from '../src/env';
import type { AppEnv } from '../src/platform/app-env';
import { renderError } from '../src/platform/errors';
import type { ServiceContext } from '../src/platform/context';
import { dbFor } from '../src/platform/d1/db';
import { listDeals } from '../src/modules/deals/list';
import { listOrders } from '../src/modules/orders/list';
import { d1, floorSelect, readThenInsert } from './bindings';

/**
 * The select floor behind a prefix of the `/v1` middleware: authentication (the
 * cached key, a key token and a per-IP token spent from this isolate's leases) alone, then with the request log, then the whole stack
 * (body parsing, the event sink, the read session). Subtracting neighbours attributes a
 * route's cost to each layer; what `GET /v1/pipelines` adds to the whole stack is the route
 * itself (validation, the query through Drizzle, serialization). A POST behind the whole stack
 * is a write's floor: two round trips through the session (and, with read replication on, the
 * floor record).
 */
function behind(middleware: readonly MiddlewareHandler<AppEnv>[]) {
  const app = new Hono<AppEnv>();
  app.onError(renderError);
  for (const layer of middleware) app.use('*', layer);
  app.get('*', async (c) => c.json(await floorSelect(c.env, c.var.workspace.id)));
  // A write's shape on the shard's binding itself, outside the request's session.
  app.post('/bench/layers/stack-shard', async (c) => c.json({ id: await readThenInsert(d1(c.env, c.var.workspace.shard)) }, 201));
  // The same through the request's session on the workspace's shard (primary); with read
  // replication on, the session then raises the workspace's floor, as after any write.
  app.post('*', async (c) => {
    const id = crypto.randomUUID();
    await c.var.db.run(sql`SELECT id FROM bench_floor WHERE id = ${id}`);
    await c.var.db.run(sql`INSERT INTO bench_floor (id, created_at) VALUES (${id}, ${new Date().toISOString()})`);
    return c.json({ id }, 201);
  });
  return async (request: Request, env: Bindings, ctx: ExecutionContext) => app.fetch(request, env, ctx);
}

type Captured = { sql: string; params: unknown[] }[];

/** A D1 binding that notes the SQL and parameters of every statement prepared through it. */
function recording(db: D1Database, seen: Captured): D1Database {
  const prepare = (query: string) => {
    const entry = { sql: query, params: [] as unknown[] };
    seen.push(entry);
    const statement = db.prepare(query);
    return Object.assign(Object.create(statement), {
      bind: (...params: unknown[]) => {
        entry.params = params;
        return statement.bind(...params);
      },
    });
  };
  return { prepare, batch: (statements: D1PreparedStatement[]) => db.batch(statements) } as unknown as D1Database;
}

const LISTS = { deals: listDeals, orders: listOrders } as const;
const captured = new Map<string, Captured>();

/**
 * A list route's own statement (the total and the page of rows as one JSON value, as its
 * service builds it for the workspace), sent as a raw batch and its result answered as
 * JSON: no authentication, no framework, no row mapping. What a page of 25 joined rows costs
 * D1 over the one-row floor.
 */
async function rawList(request: Request, env: Bindings) {
  const params = new URL(request.url).searchParams;
  const [list, shard, workspaceId] = [params.get('list') as keyof typeof LISTS, params.get('shard') ?? 'SHARD_0', params.get('ws') ?? ''];
  if (!(list in LISTS)) return Response.json({ error: `unknown list: ${list}` }, { status: 404 });
  const db = d1(env, shard);
  const key = `${list}:${workspaceId}`;
  let statements = captured.get(key);
  if (!statements) {
    const seen: Captured = [];
    const ctx = { db: dbFor(recording(db, seen)), ws: { id: workspaceId }, events: null } as unknown as ServiceContext;
    await LISTS[list](ctx, {});
    captured.set(key, (statements = seen));
  }
  const results = await db.batch(statements.map((s) => db.prepare(s.sql).bind(...s.params)));
  return Response.json(results.map((r) => r.results));
}

const [log, auth] = V1_MIDDLEWARE;
const stack = behind(V1_MIDDLEWARE);

export const layerRoutes = {
  '/bench/layers/auth': behind([auth]),
  '/bench/layers/auth-log': behind([log, auth]),
  '/bench/layers/stack': stack,
  '/bench/layers/raw-list': rawList,
  '/bench/layers/stack-shard': stack,
  // The same write with D1 read replication switched on: the workspace's floor is raised before the answer.
  '/bench/layers/stack-replicas': (request: Request, env: Bindings, ctx: ExecutionContext) =>
    stack(request, { ...env, D1_READ_REPLICATION: 'auto' }, ctx),
};
