import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace } from '../support/harness';
import { addUser, column, createDeal, eventsOf, expectCoded, expectDense, freshPhone, query, stagesOf } from './helpers';

describe('POST /v1/deals with an external_reference match', () => {
  it('updates exactly the listed fields, re-applies the contact and answers duplicate: true', async () => {
    const ws = await makeWorkspace();
    const owner = await addUser(ws, { role: 'agent' });
    const original = await createDeal(ws, { external_reference: 'crm-1', title: 'Old', amount: 10, note: 'n1' });
    await ws.api('POST', `/v1/deals/${original.id}/status`, { status: 'won' });
    const renewals = await adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name: 'Other', is_default: false, stages: [{ name: 'X' }] });
    const phone = freshPhone();
    const res = await ws.api('POST', '/v1/deals', {
      external_reference: 'crm-1',
      phone,
      title: 'New',
      amount: 20.5,
      currency: 'chf',
      owner_user_id: owner.id,
      expected_close_at: '2031-05-01T10:00:00+02:00',
      note: ' n2 ',
      pipeline_id: renewals.id,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: original.id,
      duplicate: true,
      title: 'New',
      amount: 20.5,
      currency: 'CHF',
      owner_user_id: owner.id,
      expected_close_at: '2031-05-01T08:00:00.000Z',
      note: 'n2',
      status: 'won',
      pipeline_id: original.pipeline_id,
      stage_id: original.stage_id,
      contact_phone: phone,
    });
    expect(res.body.contact_id).not.toBe(original.contact_id);
    expect((await ws.api('GET', '/v1/deals')).body.total).toBe(1);
    expect(await eventsOf(ws.id, 'deal.stage_changed')).toEqual([]);
    expect(await eventsOf(ws.id, 'deal.created')).toHaveLength(1);
  });

  it('keeps fields that are not sent and needs a contact reference again', async () => {
    const ws = await makeWorkspace();
    const original = await createDeal(ws, { external_reference: 'r', amount: 10, note: 'keep' });
    const res = await ws.api('POST', '/v1/deals', { external_reference: 'r', contact_id: original.contact_id });
    expect(res.body).toMatchObject({ duplicate: true, amount: 10, note: 'keep', title: 'Deal' });
    const bare = await ws.api('POST', '/v1/deals', { external_reference: 'r' });
    expect(bare.status).toBe(400);
    expect(bare.body.message).toBe('Provide contact_id, or a phone/email to identify the contact');
  });

  it('attaches a resolved product, keeping the title derived from it', async () => {
    const ws = await makeWorkspace();
    const product = (await ws.api('POST', '/v1/products', { name: 'Pro', price: 50 })).body;
    const original = await createDeal(ws, { external_reference: 'p', title: 'Custom' });
    const res = await ws.api('POST', '/v1/deals', {
      external_reference: 'p',
      contact_id: original.contact_id,
      product_id: product.id,
      title: 'ignored',
    });
    expect(res.body).toMatchObject({ product_id: product.id, title: 'Pro', amount: 0 });
    const again = await ws.api('POST', '/v1/deals', { external_reference: 'p', contact_id: original.contact_id, title: 'still ignored' });
    expect(again.body.title).toBe('Pro');
    await ws.api('PATCH', `/v1/products/${product.id}`, { is_active: false });
    // already attached: an inactive product does not block the replay
    const replay = await ws.api('POST', '/v1/deals', { external_reference: 'p', contact_id: original.contact_id, product_id: product.id });
    expect(replay.status).toBe(201);
  });

  it('moves the deal with the stage route effects when stage_id differs', async () => {
    const ws = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const [newStage, qualified] = sales.stages;
    const other = await createDeal(ws, { stage_id: qualified.id });
    const deal = await createDeal(ws, { external_reference: 'mv' });
    const res = await ws.api('POST', '/v1/deals', { external_reference: 'mv', contact_id: deal.contact_id, stage_id: qualified.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ stage_id: qualified.id, position: 0, duplicate: true });
    expect(res.body.stage_entered_at > deal.stage_entered_at).toBe(true);
    expect((await column(ws.id, qualified.id)).map((r) => r.id)).toEqual([deal.id, other.id]);
    expect(await query('SELECT from_stage_id, to_stage_id FROM deal_stage_history WHERE deal_id = ?', deal.id)).toEqual([
      { from_stage_id: newStage.id, to_stage_id: qualified.id },
    ]);
    const [event] = await eventsOf(ws.id, 'deal.stage_changed');
    expect(event.data).toMatchObject({
      deal_id: deal.id,
      from_stage_id: newStage.id,
      from_stage_name: 'New',
      stage_id: qualified.id,
      stage_name: 'Qualified',
    });
    // the same stage again is no move
    await ws.api('POST', '/v1/deals', { external_reference: 'mv', contact_id: deal.contact_id, stage_id: qualified.id });
    expect(await eventsOf(ws.id, 'deal.stage_changed')).toHaveLength(1);
    const missing = await ws.api('POST', '/v1/deals', { external_reference: 'mv', contact_id: deal.contact_id, stage_id: crypto.randomUUID() });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Stage not found');
  });

  it('parallel creates with one reference give one deal', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => ws.api('POST', '/v1/deals', { external_reference: 'race', phone, title: `T${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect((await ws.api('GET', '/v1/deals?external_reference=race')).body.total).toBe(1);
    expect(await eventsOf(ws.id, 'deal.created')).toHaveLength(1);
    const [sales] = await stagesOf(ws);
    expectDense(await column(ws.id, sales.stages[0].id));
  });

  it('keeps references per workspace', async () => {
    const one = await makeWorkspace();
    const two = await makeWorkspace();
    const a = await createDeal(one, { external_reference: 'shared' });
    const b = await createDeal(two, { external_reference: 'shared' });
    expect(b.duplicate).toBe(false);
    expect(b.id).not.toBe(a.id);
  });

  it('validates the owner on a replay too', async () => {
    const ws = await makeWorkspace();
    const deal = await createDeal(ws, { external_reference: 'o' });
    expectCoded(
      await ws.api('POST', '/v1/deals', { external_reference: 'o', contact_id: deal.contact_id, owner_user_id: crypto.randomUUID() }),
      400,
      'INVALID_DEAL_OWNER',
    );
  });
});
