import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { gateWrites, mayWrite } from '../../src/platform/d1/write-gate';

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
  return done;
};

function gate() {
  let admit!: () => void;
  let refuse!: (err: Error) => void;
  const admission = new Promise<void>((resolve, reject) => {
    admit = resolve;
    refuse = reject;
  });
  admission.catch(() => undefined);
  return { admission, admit, refuse };
}

const names = async () => (await env.SHARD_0.prepare('SELECT name FROM gate_probe ORDER BY name').all<{ name: string }>()).results.map((r) => r.name);

describe('write gate (reads admitted speculatively)', () => {
  beforeAll(async () => {
    await env.SHARD_0.exec('CREATE TABLE IF NOT EXISTS gate_probe (name TEXT PRIMARY KEY, updated_at TEXT)');
  });

  it('tells statements that may write from those that only read', () => {
    for (const q of ['SELECT updated_at, deleted FROM t', 'WITH x AS (SELECT 1) SELECT * FROM x', 'select "created_at" from "contacts"'])
      expect(mayWrite(q), q).toBe(false);
    for (const q of [
      'INSERT INTO t VALUES (1)',
      'update t set a = 1',
      'DELETE FROM t',
      'WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x',
      'REPLACE INTO t VALUES (1)',
    ])
      expect(mayWrite(q), q).toBe(true);
  });

  it('runs reads at once and holds writes, alone or in a batch, until the request is admitted', async () => {
    await env.SHARD_0.exec('DELETE FROM gate_probe');
    const { admission, admit } = gate();
    const db = gateWrites(env.SHARD_0, admission);
    expect(await settled(db.prepare('SELECT count(*) AS n FROM gate_probe').first())).toBe(true);
    const insert = db.prepare('INSERT INTO gate_probe (name) VALUES (?)').bind('single').run();
    const batch = db.batch([db.prepare('SELECT 1'), db.prepare('INSERT INTO gate_probe (name) VALUES (?)').bind('batched')]);
    expect(await settled(insert)).toBe(false);
    expect(await settled(batch)).toBe(false);
    expect(await names()).toEqual([]);
    admit();
    await Promise.all([insert, batch]);
    expect(await names()).toEqual(['batched', 'single']);
  });

  it('fails the writes of a refused request with its refusal, writing nothing', async () => {
    await env.SHARD_0.exec('DELETE FROM gate_probe');
    const { admission, refuse } = gate();
    const db = gateWrites(env.SHARD_0, admission);
    const insert = db.prepare('INSERT INTO gate_probe (name) VALUES (?)').bind('refused').run();
    const batch = db.batch([db.prepare('UPDATE gate_probe SET updated_at = ?').bind('x')]);
    refuse(new Error('429'));
    await expect(insert).rejects.toThrow('429');
    await expect(batch).rejects.toThrow('429');
    expect(await db.prepare('SELECT count(*) AS n FROM gate_probe').first('n')).toBe(0);
    expect(await names()).toEqual([]);
  });
});
