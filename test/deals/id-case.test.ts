import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { createDeal, freshPhone, stagesOf } from './helpers';

// UUIDs compare case-insensitively: an id sent in upper case names the same record.
describe('deal routes take ids in any letter case', () => {
  it('GET, PATCH, /stage (path and stage_id) and /status', async () => {
    const ws = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const deal = await createDeal(ws);
    const upper = deal.id.toUpperCase();

    const got = await ws.api('GET', `/v1/deals/${upper}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(deal.id);

    const patched = await ws.api('PATCH', `/v1/deals/${upper}`, { amount: 3 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: deal.id, amount: 3 });

    const moved = await ws.api('POST', `/v1/deals/${upper}/stage`, { stage_id: sales.stages[1].id.toUpperCase() });
    expect(moved.status).toBe(201);
    expect(moved.body).toMatchObject({ id: deal.id, stage_id: sales.stages[1].id });

    const won = await ws.api('POST', `/v1/deals/${upper}/status`, { status: 'won' });
    expect(won.status).toBe(201);
    expect(won.body).toMatchObject({ id: deal.id, status: 'won' });
  });

  it('still answers 404 Deal not found for another workspace in upper case', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const deal = await createDeal(other, { phone: freshPhone() });
    const res = await ws.api('GET', `/v1/deals/${deal.id.toUpperCase()}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, message: 'Deal not found' });
  });
});

describe('expected_close_at', () => {
  it('rejects a calendar date that does not exist instead of rolling it over', async () => {
    const ws = await makeWorkspace();
    await stagesOf(ws);
    const res = await ws.api('POST', '/v1/deals', { title: 'x', phone: freshPhone(), expected_close_at: '2024-02-30' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, message: ['expected_close_at: expected_close_at must be a valid ISO 8601 date'] });
    const leap = await ws.api('POST', '/v1/deals', { title: 'x', phone: freshPhone(), expected_close_at: '2024-02-29T23:30:00+01:00' });
    expect(leap.status).toBe(201);
    expect(leap.body.expected_close_at).toBe('2024-02-29T22:30:00.000Z');
  });
});
