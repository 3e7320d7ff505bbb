import { describe, expect, it } from 'vitest';
import { admin, adminOk, makeWorkspace } from '../support/harness';
import { rowsOnShards, shardOf } from '../support/db';
import { DEFAULT_RULES } from '../../src/modules/scoring/rules';
import { freshEmail, ok, scoreBecomes, scoringWorkspace, settled } from './support';

const scoring = (id: string) => `/workspaces/${id}/scoring`;

describe('PUT /admin/v1/workspaces/{ws}/scoring', () => {
  it('reads the defaults until set, and is the workspace lead_scoring switch both ways', async () => {
    const ws = await makeWorkspace();
    expect(await adminOk('GET', scoring(ws.id))).toEqual({
      enabled: false,
      rules: DEFAULT_RULES,
      half_life_days: 30,
      rescoring: false,
      updated_at: null,
    });
    const set = await adminOk('PUT', scoring(ws.id), { enabled: true, rules: [{ signal: 'email.clicked', points: 5 }], half_life_days: 14 });
    expect(set).toMatchObject({ enabled: true, rules: [{ signal: 'email.clicked', points: 5 }], half_life_days: 14 });
    expect((await adminOk('GET', `/workspaces/${ws.id}`)).lead_scoring).toBe(true);
    const off = await adminOk('PUT', scoring(ws.id), { enabled: false });
    expect(off).toMatchObject({ enabled: false, rules: [{ signal: 'email.clicked', points: 5 }], half_life_days: 14, rescoring: false });
    expect((await adminOk('GET', `/workspaces/${ws.id}`)).lead_scoring).toBe(false);
    // Through the workspace route: the same switch, with the stored rules.
    await adminOk('PATCH', `/workspaces/${ws.id}`, { lead_scoring: true });
    expect(await adminOk('GET', scoring(ws.id))).toMatchObject({
      enabled: true,
      rules: [{ signal: 'email.clicked', points: 5 }],
      half_life_days: 14,
    });
  });

  it('switched on through the workspace routes, scores with the default rules', async () => {
    const ws = await makeWorkspace({ lead_scoring: true }, { bulk: true });
    expect(await adminOk('GET', scoring(ws.id))).toMatchObject({ enabled: true, rules: DEFAULT_RULES, half_life_days: 30 });
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    await scoreBecomes(ws, deal.contact_id, 30);
    await adminOk('PATCH', `/workspaces/${ws.id}`, { lead_scoring: false });
    expect((await adminOk('GET', scoring(ws.id))).enabled).toBe(false);
    const later = await ok(ws, 'POST', '/v1/deals', { title: 'Later', contact_id: deal.contact_id });
    await ok(ws, 'POST', `/v1/deals/${later.id}/status`, { status: 'won' });
    const shard = await shardOf(ws.id);
    const rows = await shard.prepare('SELECT count(*) AS n FROM score_signals WHERE workspace_id = ?').bind(ws.id).first<{ n: number }>();
    expect(rows!.n).toBe(1);
  });

  it('refuses unknown signals and fields by name, and rules out of bounds', async () => {
    const ws = await makeWorkspace();
    const put = (body: unknown) => admin('PUT', scoring(ws.id), body);
    const unknownSignal = await put({ enabled: true, rules: [{ signal: 'email.forwarded', points: 5 }] });
    expect(unknownSignal.status).toBe(400);
    expect(unknownSignal.body.message[0]).toMatch(/^rules\[0\]\.signal: unknown signal "email\.forwarded"/);
    const unknownField = await put({ enabled: true, rules: [{ field: 'shoe_size', equals: 42, points: 5 }] });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.message[0]).toMatch(/^rules\[0\]\.field: unknown field "shoe_size"/);
    for (const body of [
      { enabled: true, rules: [] },
      { enabled: true, rules: Array.from({ length: 51 }, (_, i) => ({ field: `custom_fields.k${i}`, equals: i, points: 1 })) },
      { enabled: true, rules: [{ signal: 'deal.won', points: 101 }] },
      { enabled: true, rules: [{ signal: 'deal.won', points: 1.5 }] },
      {
        enabled: true,
        rules: [
          { signal: 'deal.won', points: 1 },
          { signal: 'deal.won', points: 2 },
        ],
      },
      { enabled: true, rules: [{ field: 'lead_score', equals: 1, points: 1 }] },
      { enabled: true, rules: [{ signal: 'deal.won', field: 'country', points: 1 }] },
      { enabled: true, half_life_days: 0 },
      { enabled: true, half_life_days: 366 },
      { enabled: true, half_life_days: 2.5 },
      { enabled: true, extra: 1 },
      { rules: [{ signal: 'deal.won', points: 1 }] },
    ]) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Array.isArray(res.body.message)).toBe(true);
    }
    expect(
      (await put({ enabled: true, rules: Array.from({ length: 50 }, (_, i) => ({ field: `custom_fields.k${i}`, equals: i, points: 1 })) })).status,
    ).toBe(200);
    expect((await admin('PUT', scoring(crypto.randomUUID()), { enabled: true })).status).toBe(404);
    expect((await admin('GET', scoring(crypto.randomUUID()))).status).toBe(404);
  });
});

describe('the echo rule', () => {
  it('ignores a written lead_score while scoring is on and echoes the computed one; off, the field is writable and kept', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 40 }]);
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    const scored = await scoreBecomes(ws, deal.contact_id, 40);
    const patched = await ok(ws, 'PATCH', `/v1/contacts/${deal.contact_id}`, { lead_score: 99, city: 'Oslo' });
    expect(patched).toMatchObject({ lead_score: 40, score_band: 'warm', city: 'Oslo' });
    // Engine writes leave updated_at alone.
    expect(scored.updated_at <= patched.updated_at).toBe(true);
    await adminOk('PUT', scoring(ws.id), { enabled: false });
    expect((await ok(ws, 'GET', `/v1/contacts/${deal.contact_id}`)).lead_score).toBe(40);
    expect(await ok(ws, 'PATCH', `/v1/contacts/${deal.contact_id}`, { lead_score: 75 })).toMatchObject({ lead_score: 75, score_band: 'hot' });
  });

  it('engine writes fire no contact.updated and keep updated_at', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 40 }]);
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    const before = await ok(ws, 'GET', `/v1/contacts/${deal.contact_id}`);
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    const after = await scoreBecomes(ws, deal.contact_id, 40);
    expect(after.updated_at).toBe(before.updated_at);
    const updates = await rowsOnShards(`SELECT id FROM event_outbox WHERE workspace_id = ? AND type = 'contact.updated'`, ws.id);
    expect(updates).toEqual([]);
  });
});

describe('rescoring on a rule change', () => {
  it('rescores every contact in the background with the new rules, field rules included', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 40 }]);
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    await scoreBecomes(ws, deal.contact_id, 40);
    const customer = await ok(ws, 'POST', '/v1/contacts', {
      email: freshEmail(),
      lifecycle_stage: 'customer',
      custom_fields: { plan: 'enterprise' },
    });
    const lead = await ok(ws, 'POST', '/v1/contacts', { email: freshEmail(), lifecycle_stage: 'lead' });
    const changed = await adminOk('PUT', scoring(ws.id), {
      enabled: true,
      rules: [
        { signal: 'deal.won', points: 10 },
        { field: 'lifecycle_stage', equals: 'customer', points: 20 },
        { field: 'custom_fields.plan', equals: 'enterprise', points: 15 },
      ],
    });
    expect(changed.rescoring).toBe(true);
    await settled(ws);
    await scoreBecomes(ws, deal.contact_id, 10);
    await scoreBecomes(ws, customer.id, 35);
    await scoreBecomes(ws, lead.id, 0);
    const why = await ok(ws, 'GET', `/v1/contacts/${customer.id}/score`);
    expect(why.contributions).toEqual([
      { field: 'lifecycle_stage', equals: 'customer', points: 20 },
      { field: 'custom_fields.plan', equals: 'enterprise', points: 15 },
    ]);
    expect(why.score_band).toBe('warm');
  });
});

describe('field rules follow the contact', () => {
  it('a created contact, a PATCH and an upsert by identifier score again with the fields they wrote', async () => {
    const ws = await scoringWorkspace([
      { field: 'lifecycle_stage', equals: 'customer', points: 30 },
      { field: 'custom_fields.plan', equals: 'enterprise', points: 25 },
    ]);
    const email = freshEmail();
    const created = await ok(ws, 'POST', '/v1/contacts', { email, lifecycle_stage: 'customer' });
    await scoreBecomes(ws, created.id, 30);
    await ok(ws, 'PATCH', `/v1/contacts/${created.id}`, { custom_fields: { plan: 'enterprise' } });
    await scoreBecomes(ws, created.id, 55);
    await ok(ws, 'POST', '/v1/contacts', { email, lifecycle_stage: 'lead' });
    await scoreBecomes(ws, created.id, 25);
    const phone = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
    const byPhone = await ok(ws, 'POST', '/v1/contacts', { phone });
    await scoreBecomes(ws, byPhone.id, 0);
    await ok(ws, 'POST', '/v1/contacts', { phone, lifecycle_stage: 'customer' });
    await scoreBecomes(ws, byPhone.id, 30);
    // The markers that asked for these passes weigh nothing and are gone once counted.
    const left = await rowsOnShards('SELECT id FROM score_signals WHERE workspace_id = ?', ws.id);
    expect(left).toEqual([]);
  });
});
