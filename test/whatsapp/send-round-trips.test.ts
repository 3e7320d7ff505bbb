import { describe, expect, it } from 'vitest';
import { counted } from '../support/round-trips';
import { messagesOf, outboxOf, template, waWorkspace } from './helpers';

const vars = (...texts: string[]) => texts.map((text) => ({ type: 'text', text }));

describe('POST /v1/templates/{id}/send through the sandbox: the message rides in the write batch', () => {
  it('sends to a new recipient in two round trips (the reads, then contact, conversation, outbox entry and the message written sent)', async () => {
    const ws = await waWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    const t = await template(ws);
    expect((await counted(ws, 'GET', '/v1/templates')).status).toBe(200);
    const res = await counted(ws, 'POST', `/v1/templates/${t.id}/send`, { to: '+14155550123', body_variables: vars('Ada', 'SPRING20') });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(2);
    const [out] = await outboxOf(ws);
    expect(out.body.wamid).toBe(res.body.wamid);
    const [message] = await messagesOf(ws);
    expect(message).toMatchObject({ id: res.body.message_id, status: 'sent', wamid: res.body.wamid, error: null });
  });

  it('a message the sandbox refuses takes the provider call: 502, kept failed, nothing in the outbox', async () => {
    const ws = await waWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    const t = await template(ws);
    const res = await counted(ws, 'POST', `/v1/templates/${t.id}/send`, { to: '+15005550001', body_variables: vars('a', 'b') });
    expect(res.status).toBe(502);
    expect(await outboxOf(ws)).toEqual([]);
    const [message] = await messagesOf(ws);
    expect(message).toMatchObject({ status: 'failed', wamid: null });
  });
});
