import type { Bindings } from '../src/env';
import { eventOutbox } from '../src/platform/schema';
import { dbFor } from '../src/platform/d1/db';
import { publishCommitted } from '../src/platform/outbox';
import { SIGNALS, signalsCommitted, signalStatements } from '../src/platform/signals';
import { uuidv7 } from '../src/platform/ids';
import { configureInstanceCaches, instanceCachesWithout, instanceCacheStats, resetInstanceCaches } from '../src/platform/instance-cache';
import { hit, spendLeasedToken } from '../src/platform/rate-limit';
import { d1, floorInsert, floorSelect, floorSelectStatement, readThenInsert, workspaceD1 } from './bindings';
import { layerRoutes } from './layers';
import { seedContacts, type SeedContact } from './seed-contacts';

type BenchRoute = (request: Request, env: Bindings, ctx: ExecutionContext) => Promise<Response>;

const json = (body: unknown, status = 200) => Response.json(body, { status });

/** `off` or `location` while the benchmark measures what a fresh instance pays: the Worker runs with `INSTANCE_CACHES` set to it. */
let cacheMode: 'on' | 'off' | 'location' = 'on';
export const benchInstanceCaches = () => cacheMode;

/**
 * The floors: what one D1 round trip costs with no authentication and no
 * framework work. Every measured route is reported as a multiple of these.
 */
export const benchRoutes: Record<string, BenchRoute> = {
  ...layerRoutes,
  '/bench/floor/select': async (request, env) => {
    const id = new URL(request.url).searchParams.get('id') ?? '';
    return json(await floorSelect(env, id));
  },
  '/bench/floor/insert': async (_request, env) => {
    const id = crypto.randomUUID();
    await floorInsert(d1(env, 'DB'), id);
    return json({ id }, 201);
  },
  /**
   * Attribution: the select floor plus the rate limits a `/v1` request checks:
   * a Durable Object call on every request (what a read pays with read replication on,
   * where it asks the workspace's floor), then a key token and a per-IP token
   * spent from this isolate's leases (as with it off, the default), so the limits'
   * share of a route's cost can be read off.
   */
  '/bench/layers/limiter': async (request, env) => {
    const id = new URL(request.url).searchParams.get('id') ?? '';
    const [row] = await Promise.all([floorSelect(env, id), hit(env, 'bench:key')]);
    return json(row);
  },
  '/bench/layers/limiters': async (request, env, ctx) => {
    const id = new URL(request.url).searchParams.get('id') ?? '';
    const waitUntil = (p: Promise<unknown>) => ctx.waitUntil(p);
    const [row] = await Promise.all([
      floorSelect(env, id),
      spendLeasedToken(env, 'bench:key', 1_000_000, waitUntil),
      spendLeasedToken(env, 'bench:ip', 1_000_000, waitUntil),
    ]);
    return json(row);
  },
  /**
   * What each kind of call costs on its own: `count` sequential calls of each, with no other
   * load, timed inside the Worker (the runtime's clock moves on I/O, which each call is). A
   * key's limiter call (its object already running), the select floor's round trip, and a
   * stub looked up once and reused, to show the look-up is not the cost.
   */
  '/bench/call-costs': async (request, env) => {
    const count = Number(new URL(request.url).searchParams.get('count') ?? '500');
    const perCall = async (call: () => Promise<unknown>) => {
      await call();
      const started = Date.now();
      for (let i = 0; i < count; i++) await call();
      return (Date.now() - started) / count;
    };
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName('bench:calls:reused'));
    return json({
      limiter: await perCall(() => hit(env, 'bench:calls')),
      limiterReusedStub: await perCall(() => stub.hit(60_000)),
      selectFloor: await perCall(() => floorSelect(env, 'none')),
      insertFloor: await perCall(() => floorInsert(d1(env, 'DB'), crypto.randomUUID())),
    });
  },
  /** An indexed one-row read like the floor's, on the workspace's shard: the database the routes read (100,000 contacts) instead of the small control plane. */
  '/bench/layers/shard-select': async (request, env) => {
    const params = new URL(request.url).searchParams;
    const [shard, id] = [params.get('shard') ?? 'SHARD_0', params.get('id') ?? ''];
    return json(await d1(env, shard).prepare('SELECT id, name FROM pipelines WHERE id = ?').bind(id).first());
  },
  /** The select floor's row padded to `bytes` of JSON: what the answer's size alone costs between the Worker and the client. */
  '/bench/layers/sized': async (request, env) => {
    const params = new URL(request.url).searchParams;
    const row = await floorSelect(env, params.get('id') ?? '');
    const bytes = Number(params.get('bytes') ?? '2000');
    return json({ ...row, padding: 'x'.repeat(Math.max(0, bytes - 80)) });
  },
  /** The select floor's query twice in one `batch`: what a batch costs over a single statement (list routes send count and page as one). */
  '/bench/layers/batch': async (request, env) => {
    const id = new URL(request.url).searchParams.get('id') ?? '';
    const statement = floorSelectStatement(env, id);
    const [first] = await d1(env, 'DB').batch([statement, statement]);
    return json(first.results[0]);
  },
  /** Writes `count` outbox events and publishes them, as committed writes would: the delivery throughput source. */
  '/bench/emit': async (request, env) => {
    // `contact_ids`: the contacts the events name (an automation enrolls them), else made-up ones.
    const {
      workspace_id: workspaceId,
      count,
      contact_ids: contactIds,
    } = (await request.json()) as { workspace_id: string; count: number; contact_ids?: string[] };
    const shard = await workspaceD1(env, workspaceId);
    if (!shard) return json({ error: 'unknown workspace' }, 404);
    const db = dbFor(shard);
    const now = new Date().toISOString();
    const rows = Array.from({ length: count }, (_, i) => ({
      id: uuidv7(),
      workspaceId,
      type: 'contact.created' as const,
      data: { contact_id: contactIds?.[i % contactIds.length] ?? crypto.randomUUID(), sequence: i },
      createdAt: now,
      enqueuedAt: null,
      attempts: 0,
    }));
    const inserts = [];
    for (let i = 0; i < rows.length; i += 10) inserts.push(db.insert(eventOutbox).values(rows.slice(i, i + 10)));
    if (inserts.length) await db.batch(inserts as [(typeof inserts)[number], ...(typeof inserts)[number][]]);
    await publishCommitted(
      env,
      db,
      rows.map((r) => r.id),
    );
    return json({ emitted: rows.length }, 201);
  },
  /**
   * Records `per_contact` lead-scoring signals for each contact through the same seam a write batch uses, `per_batch`
   * to a D1 batch, each batch handed to the engine once committed as a request's would be: the scoring throughput source.
   */
  '/bench/signals': async (request, env) => {
    const {
      workspace_id: workspaceId,
      contact_ids: ids,
      per_contact: perContact,
      per_batch: perBatch,
    } = (await request.json()) as {
      workspace_id: string;
      contact_ids: string[];
      per_contact: number;
      per_batch: number;
    };
    const shard = await workspaceD1(env, workspaceId);
    if (!shard) return json({ error: 'unknown workspace' }, 404);
    const db = dbFor(shard);
    const statements = ids.flatMap((id, i) =>
      Array.from({ length: perContact }, (_, k) => signalStatements(db, workspaceId, id, SIGNALS[(i + k) % SIGNALS.length])).flat(),
    );
    const batches = [];
    for (let i = 0; i < statements.length; i += perBatch) batches.push(statements.slice(i, i + perBatch));
    // Eight writers at a time, like the request load that would produce them.
    for (let i = 0; i < batches.length; i += 8) {
      await Promise.all(
        batches.slice(i, i + 8).map(async (batch) => {
          await db.batch(batch as [(typeof batch)[number], ...(typeof batch)[number][]]);
          await signalsCommitted(env, [workspaceId]);
        }),
      );
    }
    return json({ recorded: statements.length }, 201);
  },
  /** Signals of the workspace no scoring pass has counted yet. */
  '/bench/signals/pending': async (request, env) => {
    const workspaceId = new URL(request.url).searchParams.get('workspace_id') ?? '';
    const shard = await workspaceD1(env, workspaceId);
    if (!shard) return json({ error: 'unknown workspace' }, 404);
    const row = await shard
      .prepare('SELECT count(*) AS n FROM score_signals WHERE workspace_id = ? AND pending = 1')
      .bind(workspaceId)
      .first<{ n: number }>();
    return json({ pending: row?.n ?? 0 });
  },
  /** Bulk contact seeding: the rows the contacts service writes, thousands per batch. */
  '/bench/seed/contacts': async (request, env) => {
    const { workspace_id: workspaceId, contacts } = (await request.json()) as { workspace_id: string; contacts: SeedContact[] };
    return seedContacts(workspaceId, contacts, env);
  },
  /** `EXPLAIN QUERY PLAN` and the timing of one statement, for investigating a slow route on the seeded data. */
  '/bench/explain': async (request, env) => {
    const { sql, params = [], shard = 'SHARD_0' } = (await request.json()) as { sql: string; params?: unknown[]; shard?: string };
    const db = d1(env, shard);
    const plan = await db
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .bind(...params)
      .all();
    const started = Date.now();
    const result = await db
      .prepare(sql)
      .bind(...params)
      .all();
    return json({ plan: plan.results.map((r) => r.detail), ms: Date.now() - started, rows: result.results.length, first: result.results[0] ?? null });
  },
  /** Email consent `subscribed` for the first `count` seeded contacts with an address (the seed leaves email consent unknown): an email campaign's audience. */
  '/bench/email-subscribe': async (request, env) => {
    const { workspace_id: workspaceId, count } = (await request.json()) as { workspace_id: string; count: number };
    const shard = await workspaceD1(env, workspaceId);
    if (!shard) return json({ error: 'unknown workspace' }, 404);
    const res = await shard
      .prepare(
        "UPDATE contacts SET email_consent_state = 'subscribed' WHERE id IN (SELECT id FROM contacts WHERE workspace_id = ?1 AND email IS NOT NULL ORDER BY id LIMIT ?2)",
      )
      .bind(workspaceId, count)
      .run();
    return json({ subscribed: res.meta.changes });
  },
  /** Makes `count` of the workspace's pending payment requests due (the API only takes future expiries): the expiry sweep's load. */
  '/bench/payment-requests/due': async (request, env) => {
    const { workspace_id: workspaceId, count } = (await request.json()) as { workspace_id: string; count: number };
    const shard = await workspaceD1(env, workspaceId);
    if (!shard) return json({ error: 'unknown workspace' }, 404);
    const past = new Date(Date.now() - 60_000).toISOString();
    const res = await shard
      .prepare(
        "UPDATE payment_requests SET expires_at = ?1 WHERE id IN (SELECT id FROM payment_requests WHERE workspace_id = ?2 AND status = 'pending' LIMIT ?3)",
      )
      .bind(past, workspaceId, count)
      .run();
    return json({ due: res.meta.changes });
  },
  /** The shape of a write with no framework: one read, then one insert (two round trips). */
  '/bench/layers/two-round-trips': async (_request, env) => json({ id: await readThenInsert(d1(env, 'DB')) }, 201),
  /**
   * `POST ?mode=on|off|location[&without=<namespace>,...]`: the mode of every later request (with the named
   * namespaces off alone), every namespace emptied and its counters zeroed; `GET`: each namespace's counters.
   */
  '/bench/instance-caches': async (request) => {
    const params = new URL(request.url).searchParams;
    const mode = params.get('mode');
    if (request.method === 'POST') {
      if (mode !== 'on' && mode !== 'off' && mode !== 'location') return json({ error: 'mode must be on, off or location' }, 400);
      cacheMode = mode;
      configureInstanceCaches(mode);
      instanceCachesWithout((params.get('without') ?? '').split(',').filter(Boolean));
      resetInstanceCaches();
    }
    return json({ mode: cacheMode, namespaces: instanceCacheStats() });
  },
  '/bench/setup': async (_request, env) => {
    // On every database: the control plane's floor, and the shards' for writes through a workspace session.
    for (const binding of Object.keys(env).filter((name) => name === 'DB' || /^SHARD_\d+$/.test(name))) {
      await d1(env, binding).exec('CREATE TABLE IF NOT EXISTS bench_floor (id TEXT PRIMARY KEY, created_at TEXT NOT NULL)');
    }
    return json({ ok: true });
  },
};
