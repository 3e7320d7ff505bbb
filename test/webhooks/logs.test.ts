import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { publishEvents } from '../../src/modules/webhooks/publisher';
import { forgetOldEvents } from '../../src/modules/webhooks/retention';
import { shardOf } from '../support/db';
import { eventually, makeWorkspace } from '../support/harness';
import { captureFetch, dataDb, deliveryRow, emitEvent, receiverUrl, recordingQueueEnv, registerEndpoint } from './support';

let restore: (() => void) | undefined;
afterEach(() => restore?.());
const DAY = 86_400_000;

describe('GET /v1/webhook-events', () => {
  it('lists every event of the last 30 days newest first, as delivered, with or without a subscriber', async () => {
    const ws = await makeWorkspace();
    const first = await ws.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` });
    const second = await ws.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` });
    const old = await emitEvent(ws.id, 'contact.created', { id: 'forgotten' }, 31 * DAY);
    const list = await ws.api('GET', '/v1/webhook-events?type=contact.created');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.data.map((e: { data: { contact_id: string } }) => e.data.contact_id)).toEqual([second.body.id, first.body.id]);
    for (const e of list.body.data) expect(Object.keys(e).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    const paged = await ws.api('GET', '/v1/webhook-events?type=contact.created&limit=1&offset=1');
    expect(paged.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(paged.body.data[0].id).toBe(list.body.data[1].id);
    expect((await ws.api('GET', `/v1/webhook-events/${list.body.data[0].id}`)).body).toEqual(list.body.data[0]);
    expect((await ws.api('GET', `/v1/webhook-events/${old.id}`)).status).toBe(404);
  });

  it('answers 404 event_not_found for an unknown, foreign or malformed id', async () => {
    const [a, b] = await Promise.all([makeWorkspace(), makeWorkspace()]);
    await a.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` });
    const [event] = (await a.api('GET', '/v1/webhook-events')).body.data;
    for (const id of [event.id, crypto.randomUUID(), 'not-an-id']) {
      const res = await b.api('GET', `/v1/webhook-events/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ error: { code: 'event_not_found', message: 'Event not found' } });
    }
  });

  it('gives each event the id its deliveries carry as webhook-id', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['contact.created'] });
    const fetches = captureFetch();
    restore = fetches.restore;
    const contact = await ws.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` });
    const delivered = await eventually(
      async () => fetches.to(ep.url),
      (calls) => calls.length === 1,
    );
    const [event] = (await ws.api('GET', '/v1/webhook-events?type=contact.created')).body.data;
    expect(event.data.contact_id).toBe(contact.body.id);
    expect(delivered[0].headers['webhook-id']).toBe(event.id);
    expect(JSON.parse(delivered[0].body)).toEqual(event);
  });
});

describe('delivery logs, redelivery and the test event', () => {
  it('sends a signed webhook.test to the endpoint only, logs it, and redelivers it with the same webhook-id', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    let status = 500;
    const fetches = captureFetch(() => new Response(null, { status }));
    restore = fetches.restore;
    const sent = await ws.api('POST', `/v1/webhook-endpoints/${ep.id}/test`);
    expect(sent.status).toBe(202);
    const [call] = await eventually(
      async () => fetches.to(ep.url),
      (calls) => calls.length === 1,
    );
    expect(call.headers['webhook-id']).toBe(sent.body.event_id);
    expect(new Webhook(ep.secret).verify(call.body, call.headers)).toMatchObject({
      id: sent.body.event_id,
      type: 'webhook.test',
      data: { endpoint_id: ep.id },
    });

    const failed = await eventually(
      async () => (await ws.api('GET', `/v1/webhook-endpoints/${ep.id}/deliveries`)).body,
      (page) => page.data[0]?.status === 'retrying',
    );
    expect(failed.total).toBe(1);
    expect(failed.data[0]).toMatchObject({
      event_id: sent.body.event_id,
      event_type: 'webhook.test',
      attempts: 1,
      last_status_code: 500,
      last_error: 'HTTP 500',
      delivered_at: null,
    });
    expect(failed.data[0].next_attempt_at).not.toBeNull();
    expect((await ws.api('GET', '/v1/webhook-events')).body.data.filter((e: { type: string }) => e.type === 'webhook.test')).toEqual([]);

    status = 204;
    const retried = await ws.api('POST', `/v1/webhook-endpoints/${ep.id}/deliveries/${failed.data[0].id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: failed.data[0].id, status: 'pending', next_attempt_at: null });
    const calls = await eventually(
      async () => fetches.to(ep.url),
      (all) => all.length === 2,
    );
    expect(calls[1].headers['webhook-id']).toBe(sent.body.event_id);
    expect(new Webhook(ep.secret).verify(calls[1].body, calls[1].headers)).toMatchObject({ id: sent.body.event_id });
    const done = await eventually(
      async () => (await ws.api('GET', `/v1/webhook-endpoints/${ep.id}/deliveries?status=delivered`)).body,
      (page) => page.total === 1,
    );
    expect(done.data[0]).toMatchObject({ status: 'delivered', attempts: 2, last_status_code: 204, last_error: null });
    expect(done.data[0].delivered_at).not.toBeNull();
    expect((await ws.api('GET', `/v1/webhook-endpoints/${ep.id}/deliveries?status=retrying`)).body.total).toBe(0);
  });

  it('redelivers a dead delivery of a real event, and shows a delivery pending before its first attempt', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const event = await emitEvent(ws.id, 'deal.created', { deal_id: 'd-1' });
    const recording = recordingQueueEnv();
    await publishEvents(recording.env, await dataDb(ws.id), [event.id]);
    expect(recording.sent).toHaveLength(1);
    const pending = (await ws.api('GET', `/v1/webhook-endpoints/${ep.id}/deliveries?status=pending`)).body;
    expect(pending.data).toHaveLength(1);
    expect(pending.data[0]).toMatchObject({ event_id: event.id, event_type: 'deal.created', status: 'pending', attempts: 0, last_status_code: null });

    await (await shardOf(ws.id)).prepare("UPDATE webhook_deliveries SET state = 'dead', attempts = 8 WHERE event_id = ?").bind(event.id).run();
    const fetches = captureFetch();
    restore = fetches.restore;
    const retried = await ws.api('POST', `/v1/webhook-endpoints/${ep.id}/deliveries/${pending.data[0].id}/retry`);
    expect(retried.status).toBe(202);
    const [call] = await eventually(
      async () => fetches.to(ep.url),
      (calls) => calls.length === 1,
    );
    expect(JSON.parse(call.body)).toEqual({ id: event.id, type: 'deal.created', created_at: event.createdAt, data: { deal_id: 'd-1' } });
    await eventually(
      () => deliveryRow(event.id, ep.id),
      (row) => row?.state === 'succeeded',
    );
  });

  it("answers 404 for an unknown endpoint or delivery, and for another workspace's", async () => {
    const [a, b] = await Promise.all([makeWorkspace(), makeWorkspace()]);
    const epA = await registerEndpoint(a, { url: receiverUrl() });
    const epB = await registerEndpoint(b, { url: receiverUrl() });
    const fetches = captureFetch();
    restore = fetches.restore;
    const { event_id } = (await a.api('POST', `/v1/webhook-endpoints/${epA.id}/test`)).body;
    const deliveryA = (await a.api('GET', `/v1/webhook-endpoints/${epA.id}/deliveries`)).body.data.find(
      (d: { event_id: string }) => d.event_id === event_id,
    );
    const endpointMissing = { error: { code: 'endpoint_not_found', message: 'Webhook endpoint not found' } };
    expect((await b.api('GET', `/v1/webhook-endpoints/${epA.id}/deliveries`)).body).toEqual(endpointMissing);
    expect((await b.api('POST', `/v1/webhook-endpoints/${epA.id}/test`)).body).toEqual(endpointMissing);
    expect((await b.api('POST', `/v1/webhook-endpoints/${epA.id}/deliveries/${deliveryA.id}/retry`)).body).toEqual(endpointMissing);
    for (const id of [deliveryA.id, crypto.randomUUID(), 'nope']) {
      const res = await b.api('POST', `/v1/webhook-endpoints/${epB.id}/deliveries/${id}/retry`);
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ error: { code: 'delivery_not_found', message: 'Webhook delivery not found' } });
    }
    expect((await a.api('GET', `/v1/webhook-endpoints/${epA.id}/deliveries?status=sent`)).status).toBe(400);
  });
});

describe('retention', () => {
  it('forgets events and finished deliveries after 30 days, never pending work', async () => {
    const ws = await makeWorkspace();
    const shard = await shardOf(ws.id);
    const old = await emitEvent(ws.id, 'deal.created', {}, 31 * DAY);
    const unsent = await emitEvent(ws.id, 'deal.created', {}, 31 * DAY);
    const young = await emitEvent(ws.id, 'deal.created', {}, 29 * DAY);
    await shard.prepare('UPDATE event_outbox SET enqueued_at = created_at WHERE id IN (?, ?)').bind(old.id, young.id).run();
    // Never handed to the queue (the outbox sweep still owes its fan-out): kept whatever its age.
    await shard.prepare('UPDATE event_outbox SET enqueued_at = NULL WHERE id = ?').bind(unsent.id).run();
    const at = new Date(Date.now() - 31 * DAY).toISOString();
    for (const [id, state] of [
      ['d-old', 'succeeded'],
      ['d-retrying', 'retrying'],
    ] as const) {
      await shard
        .prepare(
          "INSERT INTO webhook_deliveries (id, workspace_id, event_id, event_type, endpoint_id, url, state, attempts, created_at, updated_at) VALUES (?, ?, ?, 'deal.created', 'ep', 'https://x.example', ?, 1, ?, ?)",
        )
        .bind(id, ws.id, `${id}-event`, state, at, at)
        .run();
    }
    const result = await forgetOldEvents(env as unknown as Bindings, await dataDb(ws.id));
    expect(result.events_forgotten).toBeGreaterThanOrEqual(1);
    const left = async (sql: string) => (await shard.prepare(sql).bind(ws.id).all<{ id: string }>()).results.map((r) => r.id).sort();
    expect(await left('SELECT id FROM event_outbox WHERE workspace_id = ?')).toEqual([unsent.id, young.id].sort());
    expect(await left('SELECT id FROM webhook_deliveries WHERE workspace_id = ?')).toEqual(['d-retrying']);
  });
});
