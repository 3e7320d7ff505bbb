import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { freshPhone, mint } from './helpers';

describe('GET /v1/payment-requests', () => {
  it('lists newest first with filters on status, contact_id and deal_id', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const deal = (await ws.api('POST', '/v1/deals', { title: 'D', phone })).body;
    const a = await mint(ws, { phone, deal_id: deal.id });
    const b = await mint(ws, { phone });
    const c = await mint(ws);
    await ws.api('POST', `/v1/payment-requests/${c.id}/cancel`, {});
    const all = (await ws.api('GET', '/v1/payment-requests')).body;
    expect(all).toMatchObject({ total: 3, limit: 25, offset: 0 });
    expect(all.data.map((r: { id: string }) => r.id)).toEqual([c.id, b.id, a.id]);
    expect(all.data[0]).toHaveProperty('provider_session_id');
    const ids = async (q: string) => (await ws.api('GET', `/v1/payment-requests?${q}`)).body.data.map((r: { id: string }) => r.id);
    expect(await ids('status=cancelled')).toEqual([c.id]);
    expect(await ids('status=pending')).toEqual([b.id, a.id]);
    expect(await ids(`contact_id=${a.contact_id.toUpperCase()}`)).toEqual([b.id, a.id]);
    expect(await ids(`deal_id=${deal.id}`)).toEqual([a.id]);
    expect(await ids('limit=1&offset=1')).toEqual([b.id]);
    expect((await ws.api('GET', '/v1/payment-requests?limit=1000')).body.limit).toBe(100);
  });

  it('rejects an unknown status, malformed ids and malformed paging with 400', async () => {
    const ws = await makeWorkspace();
    const cases: [string, string][] = [
      ['status=open', 'Invalid status: must be one of pending, paid, expired, cancelled'],
      ['contact_id=abc', 'Invalid contact_id: must be a UUID'],
      ['deal_id=123', 'Invalid deal_id: must be a UUID'],
      ['limit=-1', 'Invalid limit: must be a non-negative integer'],
      ['limit=ten', 'Invalid limit: must be a non-negative integer'],
      ['offset=1.5', 'Invalid offset: must be a non-negative integer'],
    ];
    for (const [q, message] of cases) {
      const res = await ws.api('GET', `/v1/payment-requests?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, message });
    }
  });

  it("never shows another workspace's links", async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const r = await mint(other);
    expect((await ws.api('GET', '/v1/payment-requests')).body.total).toBe(0);
    expect((await ws.api('GET', `/v1/payment-requests/${r.id}`)).status).toBe(404);
    expect((await ws.api('POST', `/v1/payment-requests/${r.id}/cancel`, {})).status).toBe(404);
    expect((await ws.api('GET', `/v1/payment-requests?contact_id=${r.contact_id}`)).body.total).toBe(0);
  });
});
