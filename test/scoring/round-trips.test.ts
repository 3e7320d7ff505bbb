import { describe, expect, it } from 'vitest';
import { adminOk } from '../support/harness';
import { counted, warmWorkspace } from '../support/round-trips';

describe('round trips', () => {
  it('GET /v1/contacts/{id}/score reads the contact, the configuration, its scoring time and its signals in one', async () => {
    const ws = await warmWorkspace();
    await adminOk('PUT', `/workspaces/${ws.id}/scoring`, { enabled: true, rules: [{ signal: 'deal.won', points: 40 }] });
    const contact = await counted(ws, 'POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` });
    const res = await counted(ws, 'GET', `/v1/contacts/${contact.body.id}/score`);
    expect(res.status).toBe(200);
    expect(res.roundTrips).toBe(1);
  });

  it('a signal adds no round trip to the write that causes it', async () => {
    const off = await warmWorkspace({ features: ['deals'] });
    const on = await warmWorkspace({ features: ['deals'] });
    await adminOk('PUT', `/workspaces/${on.id}/scoring`, { enabled: true, rules: [{ signal: 'deal.won', points: 40 }] });
    const trips = [];
    for (const ws of [off, on]) {
      const deal = await counted(ws, 'POST', '/v1/deals', { title: 'D', email: `${crypto.randomUUID()}@example.com` });
      trips.push((await counted(ws, 'POST', `/v1/deals/${deal.body.id}/status`, { status: 'won' })).roundTrips);
    }
    expect(trips[1]).toBe(trips[0]);
  });
});
