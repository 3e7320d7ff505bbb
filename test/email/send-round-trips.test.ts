import { listDurableObjectIds } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { CLAIM_INSTANCES, claimInstanceName } from '../../src/durable-objects/idempotency-claims';
import { rowsIn } from '../support/db';
import type { TestWorkspace } from '../support/harness';
import { counted } from '../support/round-trips';
import { claims, emailWorkspace, outbox, sendBody } from './support';

/** A workspace whose key lookup is done (the first request of a key pays a control-plane read that is not the route's). */
async function warmEmailWorkspace(settings: Record<string, unknown> = {}) {
  const { ws } = await emailWorkspace(settings);
  expect((await counted(ws, 'GET', '/v1/sender-profiles')).status).toBe(200);
  return ws;
}

const sendRows = (ws: TestWorkspace) =>
  rowsIn<{
    id: string;
    status: string;
    provider: string | null;
    provider_message_id: string | null;
    counted_month: string | null;
    counted_day: string | null;
  }>(
    ws.id,
    'SELECT id, status, provider, provider_message_id, counted_month, counted_day FROM email_sends WHERE workspace_id = ? ORDER BY id',
    ws.id,
  );

describe('POST /v1/emails through the sandbox: the message rides in the write batch', () => {
  it('sends with a fresh key in two round trips (the read batch, then the batch that counts, records and writes it sent)', async () => {
    const ws = await warmEmailWorkspace({ email: { monthly_quota: 10, daily_warming_cap: 10 } });
    const res = await counted(
      ws,
      'POST',
      '/v1/emails',
      sendBody({ html: '<p>Order <a href="https://shop.example.org/o/1">1</a></p>', text: undefined, tracking: { clicks: true } }),
    );
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(2);
    const [message] = await outbox(ws);
    expect(res.body).toMatchObject({ status: 'sent', duplicate: false, provider_message_id: message.id });
    expect(message.html).toMatch(/href="https?:\/\/[^"]+\/t\/c\/[^"]+"/);
    expect(message.text).toContain('https://shop.example.org/o/1');
    const [row] = await sendRows(ws);
    expect(row).toMatchObject({ id: res.body.id, status: 'sent', provider: 'sandbox', provider_message_id: message.id });
    expect(row.counted_month).not.toBeNull();
    expect(row.counted_day).not.toBeNull();
    // A replay is the claim's stored answer: no round trip.
    const replay = await counted(ws, 'POST', '/v1/emails', sendBody({ idempotency_key: res.body.idempotency_key }));
    expect([replay.status, replay.body.id, replay.roundTrips]).toEqual([200, res.body.id, 0]);
  });

  it('a full quota fails the batch: nothing recorded, nothing counted, the key released', async () => {
    const ws = await warmEmailWorkspace({ email: { monthly_quota: 1 } });
    expect((await counted(ws, 'POST', '/v1/emails', sendBody())).status).toBe(201);
    const key = `key-${crypto.randomUUID()}`;
    const full = await counted(ws, 'POST', '/v1/emails', sendBody({ idempotency_key: key, to: 'bob@example.com' }));
    expect([full.status, full.body.error.code, full.roundTrips]).toEqual([402, 'quota_exceeded', 2]);
    expect((await outbox(ws)).map((m) => m.to)).toEqual(['ada@example.com']);
    expect(await sendRows(ws)).toHaveLength(1);
    const [{ sends }] = await rowsIn<{ sends: number }>(ws.id, 'SELECT sends FROM email_quota_usage WHERE workspace_id = ?', ws.id);
    expect(sends).toBe(1);
    expect(await claims(ws.id, key).claim(key, 60_000)).toMatchObject({ state: 'claimed', recovered: false });
  });
});

describe('email claims: a workspace keeps its keys in a fixed set of instances', () => {
  it('claims 24 keys in at most CLAIM_INSTANCES instances of the workspace, none of its own', async () => {
    const ws = await warmEmailWorkspace();
    const keys = Array.from({ length: 24 }, (_, i) => `many-${i}-${crypto.randomUUID()}`);
    for (const key of keys) expect((await counted(ws, 'POST', '/v1/emails', sendBody({ idempotency_key: key }))).status).toBe(201);
    const existing = new Set((await listDurableObjectIds(env.EMAIL_CLAIMS)).map((id) => id.toString()));
    const perKey = keys.map((key) => env.EMAIL_CLAIMS.idFromName(`${ws.id}:${key}`).toString());
    expect(perKey.filter((id) => existing.has(id))).toEqual([]);
    const used = new Set(keys.map((key) => claimInstanceName(ws.id, key)));
    expect(used.size).toBeLessThanOrEqual(CLAIM_INSTANCES);
    for (const name of used) expect(existing.has(env.EMAIL_CLAIMS.idFromName(name).toString())).toBe(true);
    // Keys sharing an instance stay apart: each replays its own send.
    const first = await counted(ws, 'POST', '/v1/emails', sendBody({ idempotency_key: keys[0] }));
    const second = await counted(ws, 'POST', '/v1/emails', sendBody({ idempotency_key: keys[1] }));
    expect(first.body.id).not.toBe(second.body.id);
    expect([first.status, second.status]).toEqual([200, 200]);
  });
});
