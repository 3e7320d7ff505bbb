import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { addUser, createDeal, eventsOf, expectCoded, freshPhone, query, stagesOf } from './helpers';

describe('PATCH /v1/deals/{id}', () => {
  it('updates sent fields only, with the contact join, and writes no history or event', async () => {
    const ws = await makeWorkspace();
    const owner = await addUser(ws, { role: 'agent' });
    const deal = await createDeal(ws, { amount: 1, note: 'keep', name: 'Zed' });
    const res = await ws.api('PATCH', `/v1/deals/${deal.id}`, {
      title: 'Renamed',
      amount: 2.345,
      currency: 'eur',
      owner_user_id: owner.id,
      expected_close_at: '2030-01-01',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      title: 'Renamed',
      amount: 2.35,
      currency: 'EUR',
      owner_user_id: owner.id,
      note: 'keep',
      expected_close_at: '2030-01-01T00:00:00.000Z',
      contact_name: 'Zed',
      stage_id: deal.stage_id,
      position: 0,
    });
    expect(res.body).not.toHaveProperty('duplicate');
    const cleared = await ws.api('PATCH', `/v1/deals/${deal.id}`, { owner_user_id: null, expected_close_at: null, note: '   ' });
    expect(cleared.body).toMatchObject({ owner_user_id: null, expected_close_at: null, note: null });
    expect((await ws.api('PATCH', `/v1/deals/${deal.id}`, { note: ' trimmed ' })).body.note).toBe('trimmed');
    expect(await eventsOf(ws.id, 'deal.created')).toHaveLength(1);
    expect((await eventsOf(ws.id)).filter((e) => e.type.startsWith('deal.') && e.type !== 'deal.created')).toEqual([]);
    expect(await query('SELECT id FROM deal_stage_history WHERE deal_id = ?', deal.id)).toEqual([]);
  });

  it('attaches, replaces and detaches products with the title rules', async () => {
    const ws = await makeWorkspace();
    const gold = (await ws.api('POST', '/v1/products', { name: 'Gold' })).body;
    const silver = (await ws.api('POST', '/v1/products', { name: 'Silver' })).body;
    const old = (await ws.api('POST', '/v1/products', { name: 'Old', is_active: false })).body;
    const deal = await createDeal(ws, { title: 'Manual' });
    expect((await ws.api('PATCH', `/v1/deals/${deal.id}`, { product_id: gold.id, title: 'ignored' })).body).toMatchObject({
      product_id: gold.id,
      title: 'Gold',
    });
    expect((await ws.api('PATCH', `/v1/deals/${deal.id}`, { title: 'still ignored' })).body.title).toBe('Gold');
    expect((await ws.api('PATCH', `/v1/deals/${deal.id}`, { product_id: silver.id })).body).toMatchObject({ product_id: silver.id, title: 'Silver' });
    expectCoded(await ws.api('PATCH', `/v1/deals/${deal.id}`, { product_id: old.id }), 400, 'PRODUCT_INACTIVE');
    expectCoded(await ws.api('PATCH', `/v1/deals/${deal.id}`, { product_id: crypto.randomUUID() }), 400, 'INVALID_PRODUCT');
    // an attached product that became inactive may be sent again
    await ws.api('PATCH', `/v1/products/${silver.id}`, { is_active: false });
    expect((await ws.api('PATCH', `/v1/deals/${deal.id}`, { product_id: silver.id })).status).toBe(200);
    const detached = await ws.api('PATCH', `/v1/deals/${deal.id}`, { product_id: null });
    expect(detached.body).toMatchObject({ product_id: null, title: 'Silver' });
    expect((await ws.api('PATCH', `/v1/deals/${deal.id}`, { title: 'Free again' })).body.title).toBe('Free again');
  });

  it('checks contact and owner, and answers 404 for unknown or foreign deals', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const deal = await createDeal(ws);
    const second = await createDeal(ws, { name: 'Second' });
    const foreign = await createDeal(other);
    const moved = await ws.api('PATCH', `/v1/deals/${deal.id}`, { contact_id: second.contact_id });
    expect(moved.body).toMatchObject({ contact_id: second.contact_id, contact_name: 'Second' });
    const noContact = await ws.api('PATCH', `/v1/deals/${deal.id}`, { contact_id: foreign.contact_id });
    expect(noContact.status).toBe(404);
    expect(noContact.body.message).toBe('Contact not found');
    expectCoded(
      await ws.api('PATCH', `/v1/deals/${deal.id}`, { owner_user_id: (await addUser(other, { role: 'agent' })).id }),
      400,
      'INVALID_DEAL_OWNER',
    );
    const noDeal = await ws.api('PATCH', `/v1/deals/${foreign.id}`, { title: 'mine' });
    expect(noDeal.status).toBe(404);
    expect(noDeal.body.message).toBe('Deal not found');
    for (const body of [{ status: 'won' }, { stage_id: deal.stage_id }, { title: '' }, { amount: -1 }, { note: 'x'.repeat(4001) }]) {
      expect((await ws.api('PATCH', `/v1/deals/${deal.id}`, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await other.api('GET', `/v1/deals/${foreign.id}`)).body.title).toBe('Deal');
  });
});

describe('GET /v1/deals and /v1/deals/{id}', () => {
  it('reads one deal with the contact join; 404 for foreign, 400 for non-UUID', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const phone = freshPhone();
    const deal = await createDeal(ws, { phone, name: 'Joe', email: 'joe@example.com' });
    const res = await ws.api('GET', `/v1/deals/${deal.id}`);
    expect(res.status).toBe(200);
    const { duplicate: _d, ...expected } = deal;
    expect(res.body).toEqual(expected);
    expect(res.body).toMatchObject({ contact_name: 'Joe', contact_phone: phone, contact_email: 'joe@example.com' });
    const foreign = await other.api('GET', `/v1/deals/${deal.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Deal not found');
    expect((await ws.api('GET', '/v1/deals/123')).status).toBe(400);
  });

  it('lists newest first with filters, search and paging', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    await createDeal(other, { title: 'Foreign alpha' });
    const [sales] = await stagesOf(ws);
    const owner = await addUser(ws, { role: 'agent' });
    const a = await createDeal(ws, { title: 'Alpha deal', name: 'Maria Lopez', email: 'maria@shop.example' });
    await new Promise((r) => setTimeout(r, 3));
    const b = await createDeal(ws, { title: 'Beta', owner_user_id: owner.id, stage_id: sales.stages[1].id, external_reference: 'ext-b' });
    await new Promise((r) => setTimeout(r, 3));
    const c = await createDeal(ws, { title: 'Gamma 100%', contact_id: a.contact_id });
    await ws.api('POST', `/v1/deals/${c.id}/status`, { status: 'lost' });

    const ids = async (qs = '') => {
      const res = await ws.api('GET', `/v1/deals${qs}`);
      expect(res.status, qs).toBe(200);
      return res.body.data.map((d: any) => d.id);
    };
    const all = await ws.api('GET', '/v1/deals');
    expect(all.body).toMatchObject({ total: 3, limit: 25, offset: 0 });
    expect(all.body.data.map((d: any) => d.id)).toEqual([c.id, b.id, a.id]);
    expect(all.body.data[2]).toMatchObject({ contact_name: 'Maria Lopez', contact_email: 'maria@shop.example' });
    expect(await ids(`?contact_id=${a.contact_id}`)).toEqual([c.id, a.id]);
    expect(await ids(`?owner_user_id=${owner.id}`)).toEqual([b.id]);
    expect(await ids(`?stage_id=${sales.stages[1].id}`)).toEqual([b.id]);
    expect(await ids(`?pipeline_id=${sales.id}`)).toEqual([c.id, b.id, a.id]);
    expect(await ids('?status=lost')).toEqual([c.id]);
    expect(await ids('?status=open')).toEqual([b.id, a.id]);
    expect(await ids('?status=bogus')).toEqual([c.id, b.id, a.id]);
    expect(await ids('?external_reference=ext-b')).toEqual([b.id]);
    expect(await ids('?external_reference=ext')).toEqual([]);
    expect(await ids('?pipeline_id=&stage_id=&contact_id=&owner_user_id=')).toHaveLength(3);
    expect(await ids('?search=ALPHA')).toEqual([a.id]);
    expect(await ids('?search=lopez')).toEqual([c.id, a.id]);
    // The total counts what the search matches, the contact's fields included, with the other filters.
    expect((await ws.api('GET', '/v1/deals?search=lopez&status=lost')).body.total).toBe(1);
    expect((await ws.api('GET', `/v1/deals?pipeline_id=${sales.id}&status=open`)).body.total).toBe(2);
    expect(await ids('?search=SHOP.example')).toEqual([c.id, a.id]);
    expect(await ids(`?search=${encodeURIComponent(b.contact_phone.slice(-7))}`)).toEqual([b.id]);
    expect(await ids('?search=%25')).toEqual([c.id]);
    expect(await ids(`?status=open&contact_id=${a.contact_id}`)).toEqual([a.id]);

    const page = await ws.api('GET', '/v1/deals?limit=1&offset=1');
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.data.map((d: any) => d.id)).toEqual([b.id]);
    expect((await ws.api('GET', '/v1/deals?limit=1000')).body.limit).toBe(100);
    expect((await ws.api('GET', '/v1/deals?limit=')).body.limit).toBe(25);
  });

  it('rejects malformed UUID params and paging with the exact messages', async () => {
    const ws = await makeWorkspace();
    for (const name of ['pipeline_id', 'stage_id', 'contact_id', 'owner_user_id']) {
      const res = await ws.api('GET', `/v1/deals?${name}=nope`);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`Invalid ${name}: must be a UUID`);
    }
    for (const [qs, message] of [
      ['limit=-1', 'Invalid limit: must be a non-negative integer'],
      ['limit=x', 'Invalid limit: must be a non-negative integer'],
      ['offset=1.5', 'Invalid offset: must be a non-negative integer'],
    ]) {
      const res = await ws.api('GET', `/v1/deals?${qs}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    }
  });
});
