import { describe, expect, it } from 'vitest';
import { adminOk } from '../support/harness';
import { receiverUrl, registerEndpoint } from '../webhooks/support';
import { expectFromOutbox, freshPhone, outbox, subscribed, useReceiver } from './support';

const DEAL_EVENTS = ['deal.created', 'deal.stage_changed', 'deal.won', 'deal.lost'];
const receiver = useReceiver();

async function dealWorld(settings: Record<string, unknown> = {}) {
  const { ws, ep } = await subscribed(DEAL_EVENTS, settings);
  const pipelines = (await ws.api('GET', '/v1/pipelines')).body as { id: string; name: string; stages: { id: string; name: string }[] }[];
  const sales = pipelines[0];
  const contact = (await ws.api('POST', '/v1/contacts', { phone: freshPhone() })).body;
  const owner = await adminOk('POST', `/workspaces/${ws.id}/users`, { name: 'Owner', email: `${crypto.randomUUID()}@example.com`, role: 'agent' });
  return { ws, ep, sales, contact, owner };
}

const dealData = (over: Record<string, unknown>) => ({
  deal_id: expect.any(String),
  contact_id: expect.any(String),
  pipeline_id: expect.any(String),
  pipeline_name: 'Sales',
  stage_id: expect.any(String),
  stage_name: 'New',
  from_stage_id: null,
  from_stage_name: null,
  status: 'open',
  title: 'Deal',
  amount: 0,
  currency: 'USD',
  owner_user_id: null,
  external_reference: null,
  source: 'api',
  expected_close_at: null,
  closed_at: null,
  lost_reason: null,
  ...over,
});

describe('deal events: the full deal field set', () => {
  it('deal.created, deal.stage_changed, deal.won and deal.lost carry the documented data exactly', async () => {
    const { ws, ep, sales, contact, owner } = await dealWorld();
    const [newStage, qualified, wonStage] = sales.stages;
    const created = await ws.api('POST', '/v1/deals', {
      contact_id: contact.id,
      title: 'Enterprise plan',
      amount: 1234.5,
      currency: 'eur',
      owner_user_id: owner.id,
      expected_close_at: '2030-01-31T12:00:00Z',
      external_reference: 'crm-42',
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const base = {
      deal_id: id,
      contact_id: contact.id,
      pipeline_id: sales.id,
      pipeline_name: 'Sales',
      title: 'Enterprise plan',
      amount: 1234.5,
      currency: 'EUR',
      owner_user_id: owner.id,
      external_reference: 'crm-42',
      source: 'api',
      expected_close_at: created.body.expected_close_at,
    };
    expect((await ws.api('POST', `/v1/deals/${id}/stage`, { stage_id: qualified.id })).status).toBe(201);
    const won = await ws.api('POST', `/v1/deals/${id}/status`, { status: 'won', lost_reason: 'ignored' });
    expect(won.status).toBe(201);
    const reopened = await ws.api('POST', `/v1/deals/${id}/status`, { status: 'open' });
    expect(reopened.body.status).toBe('open');
    const lost = await ws.api('POST', `/v1/deals/${id}/status`, { status: 'lost', lost_reason: 'Budget cut' });
    expect(lost.status).toBe(201);

    const got = await receiver.received(ep, 4);
    const rows = await outbox(ws.id, 'deal.*');
    expect(rows.map((r) => r.type)).toEqual(['deal.created', 'deal.stage_changed', 'deal.won', 'deal.lost']);
    got.forEach((d, i) => expectFromOutbox(d, rows[i]));
    expect(got[0].data).toEqual({
      ...base,
      stage_id: newStage.id,
      stage_name: 'New',
      from_stage_id: null,
      from_stage_name: null,
      status: 'open',
      closed_at: null,
      lost_reason: null,
    });
    expect(got[1].data).toEqual({
      ...base,
      stage_id: qualified.id,
      stage_name: 'Qualified',
      from_stage_id: newStage.id,
      from_stage_name: 'New',
      status: 'open',
      closed_at: null,
      lost_reason: null,
    });
    expect(got[2].data).toEqual({
      ...base,
      stage_id: qualified.id,
      stage_name: 'Qualified',
      from_stage_id: null,
      from_stage_name: null,
      status: 'won',
      closed_at: won.body.closed_at,
      lost_reason: null,
    });
    expect(got[3].data).toEqual({
      ...base,
      stage_id: qualified.id,
      stage_name: 'Qualified',
      from_stage_id: null,
      from_stage_name: null,
      status: 'lost',
      closed_at: lost.body.closed_at,
      lost_reason: 'Budget cut',
    });
    expect(won.body.closed_at).toEqual(expect.any(String));
    void wonStage;
  });

  it('a deal created from a phone carries explicit nulls; a stage move across pipelines names the destination pipeline', async () => {
    const { ws, ep, sales } = await dealWorld();
    const other = await adminOk('POST', `/workspaces/${ws.id}/pipelines`, {
      name: 'Renewals',
      is_default: false,
      stages: [{ name: 'Due' }, { name: 'Signed' }],
    });
    const phone = freshPhone();
    const created = await ws.api('POST', '/v1/deals', { phone, title: 'Deal' });
    const id = created.body.id;
    const target = other.stages[1];
    expect((await ws.api('POST', `/v1/deals/${id}/stage`, { stage_id: target.id })).status).toBe(201);
    const got = await receiver.received(ep, 2);
    expect(got[0].data).toEqual(dealData({ deal_id: id, contact_id: created.body.contact_id, pipeline_id: sales.id, stage_id: sales.stages[0].id }));
    expect(got[1].data).toEqual(
      dealData({
        deal_id: id,
        contact_id: created.body.contact_id,
        pipeline_id: other.id,
        pipeline_name: 'Renewals',
        stage_id: target.id,
        stage_name: 'Signed',
        from_stage_id: sales.stages[0].id,
        from_stage_name: 'New',
      }),
    );
  });

  it('an upsert by external_reference that moves the stage fires deal.stage_changed, and one that does not move fires nothing', async () => {
    const { ws, ep, sales, contact } = await dealWorld();
    const first = await ws.api('POST', '/v1/deals', { contact_id: contact.id, title: 'Ref', external_reference: 'ext-1' });
    await ws.api('POST', '/v1/deals', { contact_id: contact.id, title: 'Ref', external_reference: 'ext-1', amount: 10 });
    await ws.api('POST', '/v1/deals', { contact_id: contact.id, title: 'Ref', external_reference: 'ext-1', stage_id: sales.stages[2].id });
    const got = await receiver.received(ep, 2);
    expect(got.map((d) => d.type)).toEqual(['deal.created', 'deal.stage_changed']);
    expect(got[1].data).toEqual(
      dealData({
        deal_id: first.body.id,
        contact_id: contact.id,
        pipeline_id: sales.id,
        stage_id: sales.stages[2].id,
        stage_name: 'Won',
        from_stage_id: sales.stages[0].id,
        from_stage_name: 'New',
        title: 'Ref',
        amount: 10,
        external_reference: 'ext-1',
      }),
    );
    expect(await outbox(ws.id, 'deal.*')).toHaveLength(2);
  });
});

describe('deal quiet paths', () => {
  it('PATCH, a status set to the current one, reopening and a same-stage reorder emit nothing', async () => {
    const { ws, ep, sales, contact } = await dealWorld();
    const a = (await ws.api('POST', '/v1/deals', { contact_id: contact.id, title: 'A' })).body;
    await ws.api('POST', '/v1/deals', { contact_id: contact.id, title: 'B' });
    expect((await ws.api('PATCH', `/v1/deals/${a.id}`, { title: 'A2', amount: 99 })).status).toBe(200);
    expect((await ws.api('POST', `/v1/deals/${a.id}/status`, { status: 'open' })).status).toBe(201);
    expect((await ws.api('POST', `/v1/deals/${a.id}/stage`, { stage_id: sales.stages[0].id, index: 1 })).status).toBe(201);
    await ws.api('POST', `/v1/deals/${a.id}/status`, { status: 'won' });
    expect((await ws.api('POST', `/v1/deals/${a.id}/status`, { status: 'won' })).status).toBe(201);
    expect((await ws.api('POST', `/v1/deals/${a.id}/status`, { status: 'open' })).status).toBe(201);
    expect((await outbox(ws.id, 'deal.*')).map((r) => r.type)).toEqual(['deal.created', 'deal.created', 'deal.won']);
    const got = await receiver.received(ep, 3);
    expect(got.map((d) => [d.type, d.data.title])).toEqual([
      ['deal.created', 'A'],
      ['deal.created', 'B'],
      ['deal.won', 'A2'],
    ]);
  });

  it('an endpoint receives only the deal types it listed', async () => {
    const { ws, ep, contact } = await dealWorld();
    const wonOnly = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.won'] });
    const d = (await ws.api('POST', '/v1/deals', { contact_id: contact.id, title: 'X' })).body;
    await ws.api('POST', `/v1/deals/${d.id}/status`, { status: 'won' });
    await receiver.received(ep, 2);
    const [won] = await receiver.received(wonOnly, 1);
    expect(won.type).toBe('deal.won');
    expect(won.id).toBe((await outbox(ws.id, 'deal.won'))[0].id);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.sentTo(wonOnly)).toHaveLength(1);
  });
});

describe('deal events share the batch of their change', () => {
  it('a deal rejected inside its batch (plan cap) leaves no outbox row; parallel status changes emit once', async () => {
    const { ws, contact } = await dealWorld({ caps: { deals: 1 } });
    const first = await ws.api('POST', '/v1/deals', { contact_id: contact.id, title: 'One' });
    expect(first.status).toBe(201);
    const capped = await ws.api('POST', '/v1/deals', { contact_id: contact.id, title: 'Two' });
    expect(capped.status).toBe(403);
    expect(capped.body.error_code).toBe('PLAN_LIMIT_EXCEEDED');
    expect((await outbox(ws.id, 'deal.*')).map((r) => r.type)).toEqual(['deal.created']);

    const results = await Promise.all(Array.from({ length: 5 }, () => ws.api('POST', `/v1/deals/${first.body.id}/status`, { status: 'won' })));
    expect(results.every((r) => r.status === 201 && r.body.status === 'won')).toBe(true);
    expect((await outbox(ws.id, 'deal.*')).map((r) => r.type)).toEqual(['deal.created', 'deal.won']);
  });
});
