import { describe, expect, it } from 'vitest';
import { redriveContactJobs } from '../../src/modules/contacts/bulk/redrive';
import { dbFor } from '../../src/platform/d1/db';
import { bulkSubscribers } from '../email-campaigns/support';
import { shardOf } from '../support/db';
import { makeWorkspace, type TestWorkspace } from '../support/harness';
import { deliver } from '../support/send-queue';
import { callWith, drain, heldEnv, upload } from './bulk-helpers';
import { rows } from './helpers';

/**
 * Contact imports and exports are held by a lease of a minute: every chunk or page they record moves
 * their row's `updated_at`, and the `contact-jobs` sweep sends a job whose row has not moved for a
 * minute a new message. Time is the sweep's `at`; rows are set back to a fixed instant, nothing waits.
 */
const held = () => heldEnv();
type Held = ReturnType<typeof held>;

/** The job's row last moved at `moved` (ten minutes ago: no other test's live job is that old). */
async function stoppedAt(ws: TestWorkspace, table: 'contact_imports' | 'contact_exports', id: string) {
  const moved = Date.now() - 10 * 60_000;
  const shard = await shardOf(ws.id);
  await shard.prepare(`UPDATE ${table} SET updated_at = ? WHERE id = ?`).bind(new Date(moved).toISOString(), id).run();
  return { moved, redrive: (h: Held, at: number) => redriveContactJobs(h.env, dbFor(shard), at) };
}

const json = (ws: TestWorkspace, h: Held, method: string, path: string, body?: unknown) =>
  callWith(h.env, ws, method, path, body === undefined ? undefined : JSON.stringify(body), 'application/json');

describe('contact jobs held by a lease', () => {
  it('parallel sweeps send one message for a stalled import', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const h = held();
    const res = await upload(h.env, ws, ['email', ...Array.from({ length: 20 }, (_, i) => `twice${i}@example.com`)].join('\n'));
    h.sent.splice(0);
    const { moved, redrive } = await stoppedAt(ws, 'contact_imports', res.body.id);
    const runs = await Promise.all([redrive(h, moved + 61_000), redrive(h, moved + 61_000)]);
    expect(runs.map((r) => r.contact_imports_redriven).sort()).toEqual([0, 1]);
    expect(h.sent).toHaveLength(1);
    await drain(h.env, h.sent);
    expect((await callWith(h.env, ws, 'GET', `/v1/contact-imports/${res.body.id}`)).body).toMatchObject({ status: 'completed', created: 20 });
  });

  it('applies each row once when the re-driven message and the original run together', async () => {
    const ws = await makeWorkspace({}, { pipeline: false, bulk: true });
    const h = held();
    const total = 2_500;
    const res = await upload(h.env, ws, ['email', ...Array.from({ length: total }, (_, i) => `race${i}@example.com`)].join('\n'));
    // The original message is merely slow: it waits while the lease lapses and the sweep sends another.
    const original = h.sent.splice(0);
    expect(original).toHaveLength(1);
    const { moved, redrive } = await stoppedAt(ws, 'contact_imports', res.body.id);
    expect((await redrive(h, moved + 61_000)).contact_imports_redriven).toBe(1);
    const redriven = h.sent.splice(0);
    await Promise.all([deliver(h.env, h.sent, original), deliver(h.env, h.sent, redriven)]);
    await drain(h.env, h.sent);
    const done = (await callWith(h.env, ws, 'GET', `/v1/contact-imports/${res.body.id}`)).body;
    expect(done).toMatchObject({ status: 'completed', total_rows: total, processed_rows: total, created: total, updated: 0, failed: 0 });
    expect(await rows('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toHaveLength(total);
  });

  it('re-drives an export whose message was lost once its lease lapsed, not before', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const h = held();
    await bulkSubscribers(ws, 30);
    const created = await json(ws, h, 'POST', '/v1/contact-exports', {});
    h.sent.splice(0);
    const { moved, redrive } = await stoppedAt(ws, 'contact_exports', created.body.id);
    expect((await redrive(h, moved + 59_000)).contact_exports_redriven).toBe(0);
    expect((await redrive(h, moved + 61_000)).contact_exports_redriven).toBe(1);
    expect((await redrive(h, moved + 62_000)).contact_exports_redriven).toBe(0);
    await drain(h.env, h.sent);
    expect((await json(ws, h, 'GET', `/v1/contact-exports/${created.body.id}`)).body).toMatchObject({ status: 'completed', row_count: 30 });
  });

  it('writes each contact once when a re-driven export races its original message', async () => {
    const ws = await makeWorkspace({}, { pipeline: false, bulk: true });
    const h = held();
    const ids = await bulkSubscribers(ws, 1_200);
    const created = await json(ws, h, 'POST', '/v1/contact-exports', {});
    const original = h.sent.splice(0);
    const { moved, redrive } = await stoppedAt(ws, 'contact_exports', created.body.id);
    expect((await redrive(h, moved + 61_000)).contact_exports_redriven).toBe(1);
    const redriven = h.sent.splice(0);
    await Promise.all([deliver(h.env, h.sent, original), deliver(h.env, h.sent, redriven)]);
    await drain(h.env, h.sent);
    expect((await json(ws, h, 'GET', `/v1/contact-exports/${created.body.id}`)).body).toMatchObject({ status: 'completed', row_count: ids.length });
    const file = await callWith(h.env, ws, 'GET', `/v1/contact-exports/${created.body.id}/download`);
    const [header, ...lines] = (file.body as string).split('\r\n').filter(Boolean);
    const idColumn = header.split(',').indexOf('id');
    const exported = lines.map((line) => line.split(',')[idColumn]);
    expect(exported).toHaveLength(ids.length);
    expect(new Set(exported)).toEqual(new Set(ids));
  });
});
