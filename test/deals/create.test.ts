import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace, uuidRe } from '../support/harness';
import { addUser, column, createDeal, eventsOf, expectCoded, expectDense, freshPhone, query, stagesOf } from './helpers';

describe('POST /v1/deals', () => {
  it('creates in the default pipeline and its first stage with the contact join', async () => {
    const ws = await makeWorkspace({ currency: 'eur' });
    const [sales] = await stagesOf(ws);
    const phone = freshPhone();
    const res = await ws.api('POST', '/v1/deals', { title: 'Big one', phone, name: 'Dana', email: 'Dana@Example.com', amount: 10.005 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      workspace_id: ws.id,
      pipeline_id: sales.id,
      stage_id: sales.stages[0].id,
      product_id: null,
      owner_user_id: null,
      title: 'Big one',
      amount: 10.01,
      currency: 'EUR',
      status: 'open',
      lost_reason: null,
      closed_at: null,
      position: 0,
      note: null,
      external_reference: null,
      source: 'api',
      created_by: null,
      contact_name: 'Dana',
      contact_phone: phone,
      contact_email: 'dana@example.com',
      duplicate: false,
    });
    expect(res.body.id).toMatch(uuidRe);
    expect(res.body.contact_id).toMatch(uuidRe);
    expect(res.body.stage_entered_at).toBe(res.body.created_at);
    const timeline = await query(
      "SELECT type, source FROM contact_activities WHERE contact_id = ? AND json_extract(data, '$.deal_id') = ?",
      res.body.contact_id,
      res.body.id,
    );
    expect(timeline).toEqual([{ type: 'deal_created', source: 'api' }]);
  });

  it('emits deal.created with the documented data shape and explicit nulls', async () => {
    const ws = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const d = await createDeal(ws, { title: 'T', amount: 5, external_reference: 'ref-ev' });
    const events = await eventsOf(ws.id, 'deal.created');
    expect(events).toEqual([
      {
        type: 'deal.created',
        data: {
          deal_id: d.id,
          contact_id: d.contact_id,
          pipeline_id: sales.id,
          pipeline_name: 'Sales',
          stage_id: sales.stages[0].id,
          stage_name: 'New',
          from_stage_id: null,
          from_stage_name: null,
          status: 'open',
          title: 'T',
          amount: 5,
          currency: 'USD',
          owner_user_id: null,
          external_reference: 'ref-ev',
          source: 'api',
          expected_close_at: null,
          closed_at: null,
          lost_reason: null,
        },
      },
    ]);
  });

  it('needs a contact reference; contact_id wins and must exist in the workspace', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const res = await ws.api('POST', '/v1/deals', { title: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, message: 'Provide contact_id, or a phone/email to identify the contact' });
    const first = await createDeal(ws, { name: 'Ann' });
    const second = await createDeal(ws, { contact_id: first.contact_id, phone: freshPhone() });
    expect(second.contact_id).toBe(first.contact_id);
    expect(second.contact_name).toBe('Ann');
    const foreign = await createDeal(other);
    const missing = await ws.api('POST', '/v1/deals', { title: 'x', contact_id: foreign.contact_id });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Contact not found');
  });

  it('attaches contacts made through POST /v1/contacts, by id or by phone', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const contact = await ws.api('POST', '/v1/contacts', { name: 'Casey', phone, email: 'casey@example.com' });
    expect(contact.status).toBe(201);
    const byId = await createDeal(ws, { contact_id: contact.body.id, phone: undefined });
    expect(byId).toMatchObject({ contact_id: contact.body.id, contact_name: 'Casey', contact_phone: phone, contact_email: 'casey@example.com' });
    const byPhone = await createDeal(ws, { phone, name: 'Not applied' });
    expect(byPhone).toMatchObject({ contact_id: contact.body.id, contact_name: 'Casey' });
  });

  it('upserts the contact by phone, then email', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const a = await createDeal(ws, { phone, name: 'First' });
    const b = await createDeal(ws, { phone, name: 'Ignored for a match' });
    expect(b.contact_id).toBe(a.contact_id);
    expect(b.contact_name).toBe('First');
    const c = await createDeal(ws, { phone: undefined, email: 'e@example.com' });
    const d = await createDeal(ws, { phone: undefined, email: 'E@example.com ' });
    expect(d.contact_id).toBe(c.contact_id);
  });

  it('answers 409 CONTACT_MERGE_REQUIRED when phone and email name two contacts, writing nothing', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    await createDeal(ws, { phone });
    await createDeal(ws, { phone: undefined, email: 'other@example.com' });
    const res = await ws.api('POST', '/v1/deals', { title: 'x', phone, email: 'other@example.com' });
    expectCoded(res, 409, 'CONTACT_MERGE_REQUIRED');
    expect(res.body.merge_request_id).toMatch(uuidRe);
    expect((await ws.api('GET', '/v1/deals')).body.total).toBe(2);
  });

  it('moves deals to the surviving contact when the merge request is resolved', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const byPhone = await createDeal(ws, { phone });
    const byEmail = await createDeal(ws, { phone: undefined, email: 'merge@example.com' });
    const conflict = await ws.api('POST', '/v1/deals', { title: 'x', phone, email: 'merge@example.com' });
    expect(conflict.status).toBe(409);
    await adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    const moved = await ws.api('GET', `/v1/deals/${byEmail.id}`);
    expect(moved.body).toMatchObject({ contact_id: byPhone.contact_id, contact_phone: phone, contact_email: 'merge@example.com' });
  });

  it('rejects missing titles, bad amounts and unknown properties', async () => {
    const ws = await makeWorkspace();
    expectCoded(await ws.api('POST', '/v1/deals', { phone: freshPhone() }), 400, 'MISSING_TITLE');
    expectCoded(await ws.api('POST', '/v1/deals', { phone: freshPhone(), title: '   ' }), 400, 'MISSING_TITLE');
    for (const body of [
      { amount: -1 },
      { amount: 10_000_000_000 },
      { title: 'x'.repeat(201) },
      { note: 'n'.repeat(4001) },
      { currency: 'TOOLONGCUR' },
      { extra: 1 },
      { expected_close_at: 'soon' },
    ]) {
      const res = await ws.api('POST', '/v1/deals', { title: 'ok', phone: freshPhone(), ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Array.isArray(res.body.message)).toBe(true);
    }
    const max = await createDeal(ws, { amount: 9999999999, note: '  padded  ', expected_close_at: '2030-01-02', currency: 'gbp' });
    expect(max).toMatchObject({ amount: 9999999999, note: 'padded', expected_close_at: '2030-01-02T00:00:00.000Z', currency: 'GBP' });
    expect((await createDeal(ws, { note: '   ' })).note).toBeNull();
    expect((await createDeal(ws, { amount: 0.125 })).amount).toBe(0.13);
  });

  it('resolves products by id, then sku, then external id; derives title and amount', async () => {
    const ws = await makeWorkspace();
    const p1 = (await ws.api('POST', '/v1/products', { name: 'Gold plan', sku: 'GOLD', external_id: 'g-1', price: 99.9 })).body;
    const p2 = (await ws.api('POST', '/v1/products', { name: 'Silver plan', sku: 'SILVER', external_id: 's-1' })).body;
    const byId = await createDeal(ws, { product_id: p1.id, product_sku: 'SILVER', title: 'client title' });
    expect(byId).toMatchObject({ product_id: p1.id, title: 'Gold plan', amount: 99.9 });
    const bySku = await createDeal(ws, { product_sku: 'SILVER', product_external_id: 'g-1' });
    expect(bySku).toMatchObject({ product_id: p2.id, title: 'Silver plan', amount: 0 });
    const byExt = await createDeal(ws, { product_external_id: 'g-1', amount: 5, title: undefined });
    expect(byExt).toMatchObject({ product_id: p1.id, title: 'Gold plan', amount: 5 });
    expectCoded(await ws.api('POST', '/v1/deals', { phone: freshPhone(), product_id: crypto.randomUUID() }), 400, 'INVALID_PRODUCT');
    expectCoded(await ws.api('POST', '/v1/deals', { phone: freshPhone(), product_sku: 'NOPE', product_id: undefined }), 400, 'INVALID_PRODUCT');
    // the first reference given wins even when a later one would resolve
    expectCoded(await ws.api('POST', '/v1/deals', { phone: freshPhone(), product_sku: 'NOPE', product_external_id: 'g-1' }), 400, 'INVALID_PRODUCT');
    await ws.api('PATCH', `/v1/products/${p2.id}`, { is_active: false });
    expectCoded(await ws.api('POST', '/v1/deals', { phone: freshPhone(), product_id: p2.id }), 400, 'PRODUCT_INACTIVE');
    const other = await makeWorkspace();
    expectCoded(await other.api('POST', '/v1/deals', { phone: freshPhone(), product_id: p1.id }), 400, 'INVALID_PRODUCT');
  });

  it('validates pipeline and stage', async () => {
    const ws = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const renewals = await adminOk('POST', `/workspaces/${ws.id}/pipelines`, {
      name: 'Renewals',
      is_default: false,
      stages: [{ name: 'Due' }, { name: 'Signed' }],
    });
    const empty = await adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name: 'Empty', is_default: false, stages: [] });
    expect(await createDeal(ws, { pipeline_id: renewals.id })).toMatchObject({ pipeline_id: renewals.id, stage_id: renewals.stages[0].id });
    expect(await createDeal(ws, { stage_id: renewals.stages[1].id })).toMatchObject({ pipeline_id: renewals.id, stage_id: renewals.stages[1].id });
    expect(await createDeal(ws, { pipeline_id: sales.id, stage_id: sales.stages[2].id })).toMatchObject({ stage_id: sales.stages[2].id });
    expectCoded(
      await ws.api('POST', '/v1/deals', { title: 'x', phone: freshPhone(), pipeline_id: sales.id, stage_id: renewals.stages[0].id }),
      400,
      'STAGE_PIPELINE_MISMATCH',
    );
    expectCoded(await ws.api('POST', '/v1/deals', { title: 'x', phone: freshPhone(), pipeline_id: empty.id }), 400, 'PIPELINE_HAS_NO_STAGES');
    const noPipeline = await ws.api('POST', '/v1/deals', { title: 'x', phone: freshPhone(), pipeline_id: crypto.randomUUID() });
    expect(noPipeline.status).toBe(404);
    expect(noPipeline.body.message).toBe('Pipeline not found');
    const noStage = await ws.api('POST', '/v1/deals', { title: 'x', phone: freshPhone(), stage_id: crypto.randomUUID() });
    expect(noStage.status).toBe(404);
    expect(noStage.body.message).toBe('Stage not found');
    const other = await makeWorkspace();
    const foreign = await other.api('POST', '/v1/deals', { title: 'x', phone: freshPhone(), stage_id: sales.stages[0].id });
    expect(foreign.body.message).toBe('Stage not found');
    expect((await other.api('POST', '/v1/deals', { title: 'x', phone: freshPhone(), pipeline_id: sales.id })).body.message).toBe(
      'Pipeline not found',
    );
  });

  it('answers NO_PIPELINE without pipelines and PIPELINE_HAS_NO_STAGES for an empty default', async () => {
    const bare = await makeWorkspace({}, { pipeline: false });
    expectCoded(await bare.api('POST', '/v1/deals', { title: 'x', phone: freshPhone() }), 400, 'NO_PIPELINE');
    await adminOk('POST', `/workspaces/${bare.id}/pipelines`, { name: 'Empty', is_default: true, stages: [] });
    expectCoded(await bare.api('POST', '/v1/deals', { title: 'x', phone: freshPhone() }), 400, 'PIPELINE_HAS_NO_STAGES');
    expect((await bare.api('GET', '/v1/deals')).body.total).toBe(0);
  });

  it('accepts active agents and admins as owners only', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const agent = await addUser(ws, { role: 'agent' });
    const adminUser = await addUser(ws, { role: 'admin' });
    const inactive = await addUser(ws, { role: 'agent', active: false });
    const foreign = await addUser(other, { role: 'agent' });
    expect((await createDeal(ws, { owner_user_id: agent.id })).owner_user_id).toBe(agent.id);
    expect((await createDeal(ws, { owner_user_id: adminUser.id })).owner_user_id).toBe(adminUser.id);
    for (const id of [inactive.id, foreign.id, crypto.randomUUID()]) {
      expectCoded(await ws.api('POST', '/v1/deals', { title: 'x', phone: freshPhone(), owner_user_id: id }), 400, 'INVALID_DEAL_OWNER');
    }
  });

  it('enforces the deal cap only when set, also under parallel creates', async () => {
    const ws = await makeWorkspace({ caps: { deals: 3 } });
    const results = await Promise.all(Array.from({ length: 6 }, () => ws.api('POST', '/v1/deals', { title: 'x', phone: freshPhone() })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((r) => r.status !== 201)) expectCoded(r, 403, 'PLAN_LIMIT_EXCEEDED');
    expect((await ws.api('GET', '/v1/deals')).body.total).toBe(3);
    expect(await eventsOf(ws.id, 'deal.created')).toHaveLength(3);
    const uncapped = await makeWorkspace();
    for (let i = 0; i < 4; i++) await createDeal(uncapped);
  });

  it('puts each new deal on top of its column, dense under parallel creates', async () => {
    const ws = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const first = await createDeal(ws);
    const second = await createDeal(ws);
    expect(second.position).toBe(0);
    expect((await column(ws.id, sales.stages[0].id)).map((r) => r.id)).toEqual([second.id, first.id]);
    await Promise.all(Array.from({ length: 8 }, () => createDeal(ws)));
    const rows = await column(ws.id, sales.stages[0].id);
    expect(rows).toHaveLength(10);
    expectDense(rows);
  });

  it('requires the deals feature', async () => {
    const ws = await makeWorkspace({ features: ['orders'] });
    const res = await ws.api('POST', '/v1/deals', { title: 'x', phone: freshPhone() });
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe('FEATURE_NOT_INCLUDED_IN_PLAN');
  });
});
