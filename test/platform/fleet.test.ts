/// <reference types="vite/client" />
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Bindings } from '../../src/env';
import { createWorkspace } from '../../src/modules/workspaces/service';
import { chooseShard, createPlaced, recordShardSize, setShardState } from '../../src/platform/d1/fleet';
import { DATA_SCHEMA } from '../../src/platform/d1/schema-version';
import { controlDb, measureShard } from '../../src/platform/d1/shards';
import { runPool } from '../../scripts/pool.mjs';
import { enqueueSweeps, runShardSweeps } from '../../src/sweeps/runner';
import { handleQueueBatch, wiring } from '../../src/wiring';
import { controlD1 } from '../support/db';
import { admin, adminOk, makeWorkspace, SHARDS } from '../support/harness';

const bindings = env as unknown as Bindings;
const workspacesOn = async () => {
  const { results } = await controlD1().prepare('SELECT shard, count(*) AS n FROM workspaces GROUP BY shard').all<{ shard: string; n: number }>();
  return Object.fromEntries(SHARDS.map((s) => [s, results.find((r) => r.shard === s)?.n ?? 0]));
};

afterEach(async () => {
  for (const shard of SHARDS) await adminOk('PATCH', `/shards/${shard}`, { state: 'open' });
});

describe('GET /admin/v1/shards', () => {
  it('lists every bound shard with its workspaces, its size as D1 reports it, and its state', async () => {
    await adminOk('POST', '/workspaces', { name: 'Listed', shard: 'SHARD_1' });
    const { data } = await adminOk('GET', '/shards');
    const counts = await workspacesOn();
    expect(data.map((s: { binding: string }) => s.binding)).toEqual([...SHARDS]);
    for (const shard of data) {
      expect(Object.keys(shard).sort()).toEqual(['binding', 'size_bytes', 'state', 'workspaces']);
      expect(shard.workspaces).toBe(counts[shard.binding]);
      expect(shard.state).toBe('open');
      expect(shard.size_bytes).toBeGreaterThan(0);
      expect(shard.size_bytes).toBe(await measureShard(bindings, shard.binding));
    }
  });
});

describe('PATCH /admin/v1/shards/{binding}', () => {
  it('closes a shard: new workspaces go elsewhere, one asked for there answers 409, its own stay served', async () => {
    const resident = await adminOk('POST', '/workspaces', { name: 'Resident', shard: 'SHARD_0' });
    const closed = await adminOk('PATCH', '/shards/SHARD_0', { state: 'closed' });
    expect(closed).toMatchObject({ binding: 'SHARD_0', state: 'closed' });
    expect((await adminOk('GET', '/shards')).data.find((s: { binding: string }) => s.binding === 'SHARD_0').state).toBe('closed');
    const placed = await Promise.all(Array.from({ length: 8 }, (_, i) => adminOk('POST', '/workspaces', { name: `New ${i}` })));
    expect(placed.map((w) => w.shard)).toEqual(Array(8).fill('SHARD_1'));
    const named = await admin('POST', '/workspaces', { name: 'Named', shard: 'SHARD_0' });
    expect(named.status).toBe(409);
    expect(named.body.message).toBe('Shard SHARD_0 is closed to new workspaces');
    expect((await adminOk('GET', `/workspaces/${resident.id}`)).shard).toBe('SHARD_0');
    await adminOk('PATCH', '/shards/SHARD_0', { state: 'open' });
    expect((await adminOk('POST', '/workspaces', { name: 'Back', shard: 'SHARD_0' })).shard).toBe('SHARD_0');
  });

  it('answers 503 when no open shard has room, and 404/400 for an unknown shard or state', async () => {
    for (const shard of SHARDS) await adminOk('PATCH', `/shards/${shard}`, { state: 'closed' });
    const none = await admin('POST', '/workspaces', { name: 'Nowhere' });
    expect(none.status).toBe(503);
    expect(none.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'No open shard has room for a new workspace: open a shard (PATCH /admin/v1/shards/{binding}) or add one',
    });
    for (const binding of ['SHARD_2', 'DB', 'constructor']) {
      const res = await admin('PATCH', `/shards/${binding}`, { state: 'open' });
      expect(res.status, binding).toBe(404);
      expect(res.body.message).toBe(`Shard not found: ${binding}`);
    }
    for (const body of [{ state: 'full' }, {}, { state: 'open', size_bytes: 1 }])
      expect((await admin('PATCH', '/shards/SHARD_0', body)).status).toBe(400);
  });

  it('wins over a placement in flight: a shard closed between the choice and the insert refuses the row, and the create places again', async () => {
    const tried: string[] = [];
    const ws = await createPlaced(bindings, undefined, async (shard) => {
      tried.push(shard);
      if (tried.length === 1) await setShardState(bindings, shard, 'closed');
      return createWorkspace(controlDb(bindings), { name: `Raced ${crypto.randomUUID()}` }, shard);
    });
    expect(tried).toHaveLength(2);
    expect(tried[1]).not.toBe(tried[0]);
    expect(ws.shard).toBe(tried[1]);
    const rows = await controlD1().prepare('SELECT shard FROM workspaces WHERE name = ?').bind(ws.name).all<{ shard: string }>();
    expect(rows.results).toEqual([{ shard: tried[1] }]);
  });
});

describe('placement by bytes', () => {
  it('skips a shard past the fill limit (sizes as the last sweep recorded them); with none under it, 503', async () => {
    await recordShardSize(bindings, 'SHARD_0', 5_000_000_000);
    await recordShardSize(bindings, 'SHARD_1', 1_000_000_000);
    try {
      const limited = { ...bindings, SHARD_FILL_LIMIT_BYTES: '3000000000' } as Bindings;
      for (let i = 0; i < 10; i++) expect(await createPlaced(limited, undefined, async (shard) => shard)).toBe('SHARD_1');
      const full = { ...bindings, SHARD_FILL_LIMIT_BYTES: '1000000000' } as Bindings;
      await expect(createPlaced(full, undefined, async (shard) => shard)).rejects.toMatchObject({ status: 503 });
      // The default limit (8 GB) has room on both.
      const drawn = new Set<string>();
      for (let i = 0; i < 40; i++) drawn.add(await createPlaced(bindings, undefined, async (shard) => shard));
      expect([...drawn].sort()).toEqual([...SHARDS]);
    } finally {
      for (const shard of SHARDS) await recordShardSize(bindings, shard, await measureShard(bindings, shard));
    }
  });

  it('draws a shard with odds in proportion to its free room, so a new shard does not take every workspace', () => {
    const fleet = [
      { binding: 'SHARD_0', state: 'open' as const, size_bytes: 6_000_000_000 },
      { binding: 'SHARD_1', state: 'open' as const, size_bytes: 0 },
    ];
    const picks = Array.from({ length: 100 }, (_, i) => chooseShard(fleet, 8_000_000_000, i / 100));
    expect(picks.filter((p) => p === 'SHARD_1')).toHaveLength(80);
    expect(picks.filter((p) => p === 'SHARD_0')).toHaveLength(20);
  });
});

describe('sweeps that scale with the fleet', () => {
  it('a cron tick with 1,000 shards sends 1,000 messages in 10 queue calls and touches no database', async () => {
    const untouchable = new Proxy(
      {},
      {
        get: () => {
          throw new Error('a database was touched');
        },
      },
    );
    const shards = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`SHARD_${i}`, untouchable]));
    const sendBatch = vi.fn(async () => {});
    const fleet = { ...shards, DB: untouchable, SWEEP_QUEUE: { sendBatch, send: vi.fn() } } as unknown as Bindings;
    expect(await enqueueSweeps(fleet)).toBe(10);
    const sent = sendBatch.mock.calls.flatMap((call) => (call as unknown as [{ body: { kind: string; shard: string } }[]])[0].map((m) => m.body));
    expect(sent).toHaveLength(1000);
    expect(new Set(sent.map((m) => m.shard)).size).toBe(1000);
    expect(sent.every((m) => m.kind === 'sweep-shard')).toBe(true);
  });

  it('runs every sweep on one shard; a failing sweep stops no other', async () => {
    const sweeps = new Map([
      ...wiring.sweeps,
      [
        'always-failing',
        async () => {
          throw new Error('shard unreachable');
        },
      ],
    ]);
    const outcome = await runShardSweeps(bindings, 'SHARD_0', sweeps);
    expect(Object.keys(outcome).sort()).toEqual([...sweeps.keys()].sort());
    expect(Object.entries(outcome).filter(([, r]) => 'error' in r)).toEqual([['always-failing', { error: 'shard unreachable' }]]);
    expect(outcome['expire-payment-requests']).toEqual({ payment_requests_expired: 0 });
  });

  it("a shard's message runs its sweeps and records its size", async () => {
    await recordShardSize(bindings, 'SHARD_1', 1);
    const message = { body: { kind: 'sweep-shard', shard: 'SHARD_1' }, ack: vi.fn(), retry: vi.fn() };
    await handleQueueBatch({ messages: [message] } as unknown as MessageBatch<unknown>, bindings);
    expect(message.ack).toHaveBeenCalledOnce();
    expect(wiring.sweeps.size).toBeGreaterThan(5);
    const row = await controlD1().prepare("SELECT size_bytes FROM shards WHERE binding = 'SHARD_1'").first<{ size_bytes: number }>();
    expect(row!.size_bytes).toBe(await measureShard(bindings, 'SHARD_1'));
  });
});

describe("a shard behind the code's schema", () => {
  const migrations = (env as unknown as { TEST_MIGRATIONS_DATA: { name: string }[] }).TEST_MIGRATIONS_DATA;
  const record = async (shard: string, schema: string) => {
    await recordShardSize(bindings, shard, await measureShard(bindings, shard), schema);
    // Any operator write drops the instance's key cache, which carries the shard's schema.
    await adminOk('PATCH', `/shards/${shard}`, { state: 'open' });
  };

  it('names the newest data migration', () => {
    expect(DATA_SCHEMA).toBe(migrations[migrations.length - 1].name.replace(/\.sql$/, ''));
  });

  it('refuses writes with 503 SCHEMA_UPGRADING and Retry-After while reads go on; once migrated, writes go through', async () => {
    const ws = await makeWorkspace({ shard: 'SHARD_1' });
    const contact = await ws.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` });
    expect(contact.status).toBe(201);
    try {
      await record('SHARD_1', '0022_contacts_email_eligible');
      const write = await ws.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` });
      expect(write.status).toBe(503);
      expect(write.body).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        error_code: 'SCHEMA_UPGRADING',
        message: "This workspace's database is being upgraded: retry in a minute",
      });
      expect(write.headers.get('retry-after')).toBe('60');
      expect((await ws.api('GET', `/v1/contacts/${contact.body.id}`)).status).toBe(200);
    } finally {
      await record('SHARD_1', DATA_SCHEMA);
    }
    expect((await ws.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` })).status).toBe(201);
  });

  it('is measured but not swept, and its schema is recorded for the write check', async () => {
    const shard = (env as unknown as Record<string, D1Database>).SHARD_0;
    await shard.prepare("INSERT INTO d1_migrations (id, name, applied_at) VALUES (100000, '0001_older', '2026-01-01')").run();
    try {
      const outcome = await runShardSweeps(bindings, 'SHARD_0', wiring.sweeps);
      expect(Object.keys(outcome)).toEqual([...wiring.sweeps.keys()]);
      expect(Object.values(outcome).every((r) => 'error' in r && String(r.error).includes(`this code needs ${DATA_SCHEMA}`))).toBe(true);
      expect((await controlD1().prepare("SELECT schema FROM shards WHERE binding = 'SHARD_0'").first<{ schema: string }>())!.schema).toBe(
        '0001_older',
      );
    } finally {
      await shard.prepare('DELETE FROM d1_migrations WHERE id = 100000').run();
    }
    await runShardSweeps(bindings, 'SHARD_0', wiring.sweeps);
    expect((await controlD1().prepare("SELECT schema FROM shards WHERE binding = 'SHARD_0'").first<{ schema: string }>())!.schema).toBe(DATA_SCHEMA);
  });
});

describe('migrations as a fleet operation', () => {
  it('run shards at most N at a time, and a failing shard stops no other', async () => {
    const shards = Array.from({ length: 20 }, (_, i) => `SHARD_${i}`);
    let running = 0;
    let most = 0;
    const outcomes = await runPool(shards, 4, async (shard) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 1));
      running--;
      if (shard === 'SHARD_3' || shard === 'SHARD_17') throw new Error(`${shard} failed`);
      return shard;
    });
    expect(most).toBe(4);
    expect(outcomes.map((o) => o.item)).toEqual(shards);
    expect(outcomes.filter((o) => !o.ok).map((o) => o.item)).toEqual(['SHARD_3', 'SHARD_17']);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(18);
  });
});
