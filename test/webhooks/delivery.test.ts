import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { deliverWebhooks, RETRY_DELAYS_SECONDS } from '../../src/modules/webhooks/delivery';
import { admin, makeWorkspace } from '../support/harness';
import { captureFetch, deliveryMessage, deliveryRow, fakeEvent, makeDue, receiverUrl, registerEndpoint } from './support';
import { runOnShards } from '../support/db';

const bindings = env as unknown as Bindings;
let restore: (() => void) | undefined;
afterEach(() => restore?.());

function capture(answer?: Parameters<typeof captureFetch>[0]) {
  const c = captureFetch(answer);
  restore = c.restore;
  return c;
}

describe('webhook delivery (queue consumer)', () => {
  it('POSTs the envelope signed per Standard Webhooks', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const event = fakeEvent('deal.created', { deal_id: 'd1', amount: 12.5, title: 'Ünïcode ✓' });
    const fetches = capture();
    const msg = deliveryMessage(ws.id, ep.id, event);
    await deliverWebhooks([msg], bindings);

    expect(fetches.calls).toHaveLength(1);
    const [call] = fetches.calls;
    expect(call.url).toBe(ep.url);
    expect(call.init.method).toBe('POST');
    expect(call.init.redirect).toBe('manual');
    expect(call.init.signal).toBeInstanceOf(AbortSignal);
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers['webhook-id']).toBe(event.id);
    expect(call.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(call.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(call.body)).toEqual({ id: event.id, type: 'deal.created', created_at: event.createdAt, data: event.data });
    expect(new Webhook(ep.secret).verify(call.body, call.headers)).toEqual(JSON.parse(call.body));
    expect(() => new Webhook(ep.secret).verify(call.body.replace('d1', 'd2'), call.headers)).toThrow();

    expect(msg.ack).toHaveBeenCalledOnce();
    expect(msg.retry).not.toHaveBeenCalled();
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'succeeded', attempts: 1, last_status: 204, last_error: null });
  });

  it('retries a 500 on the documented schedule, then dead-letters after 8 attempts', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const event = fakeEvent();
    const fetches = capture(() => new Response('boom', { status: 500 }));

    const first = deliveryMessage(ws.id, ep.id, event);
    await deliverWebhooks([first], bindings);
    expect(first.retry).toHaveBeenCalledWith({ delaySeconds: 5 });
    expect(first.ack).not.toHaveBeenCalled();
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'retrying', attempts: 1, last_status: 500, last_error: 'HTTP 500' });

    const delays = [5];
    for (let attempt = 2; attempt <= 8; attempt++) {
      await makeDue(event.id, ep.id);
      const msg = deliveryMessage(ws.id, ep.id, event);
      await deliverWebhooks([msg], bindings);
      if (attempt < 8) delays.push(msg.retry.mock.calls[0][0].delaySeconds);
      else {
        expect(msg.retry).not.toHaveBeenCalled();
        expect(msg.ack).toHaveBeenCalledOnce();
      }
    }
    expect(delays).toEqual(RETRY_DELAYS_SECONDS);
    expect(delays).toEqual([5, 60, 300, 1800, 7200, 21600, 43200]);
    expect(fetches.calls).toHaveLength(8);
    expect(new Set(fetches.calls.map((c) => c.headers['webhook-id']))).toEqual(new Set([event.id]));
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'dead', attempts: 8, last_status: 500, next_attempt_at: null });

    // A late duplicate of a finished delivery is acknowledged without another request.
    const late = deliveryMessage(ws.id, ep.id, event);
    await deliverWebhooks([late], bindings);
    expect(late.ack).toHaveBeenCalledOnce();
    expect(fetches.calls).toHaveLength(8);

    const list = await admin('GET', `/workspaces/${ws.id}/webhook-deliveries?state=dead`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      {
        id: expect.any(String),
        event_id: event.id,
        event_type: 'deal.created',
        endpoint_id: ep.id,
        url: ep.url,
        state: 'dead',
        attempts: 8,
        last_status: 500,
        last_error: 'HTTP 500',
        next_attempt_at: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
  });

  it('treats a 3xx as a failure and never follows it', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const event = fakeEvent();
    const fetches = capture(() => new Response(null, { status: 302, headers: { location: 'http://127.0.0.1/' } }));
    const msg = deliveryMessage(ws.id, ep.id, event);
    await deliverWebhooks([msg], bindings);
    expect(fetches.calls).toHaveLength(1);
    expect(msg.retry).toHaveBeenCalledWith({ delaySeconds: 5 });
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'retrying', last_status: 302, last_error: 'redirect (HTTP 302) not followed' });
  });

  it('counts a timeout or network error as a failed attempt', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const event = fakeEvent();
    capture(() => Promise.reject(new DOMException('The operation timed out.', 'TimeoutError')));
    const msg = deliveryMessage(ws.id, ep.id, event);
    await deliverWebhooks([msg], bindings);
    expect(msg.retry).toHaveBeenCalledWith({ delaySeconds: 5 });
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'retrying', last_status: null, last_error: 'no answer within 15 s' });
  });

  it('re-checks the URL at every attempt: an unsafe target is not fetched', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    await runOnShards('UPDATE webhook_endpoints SET url = ? WHERE id = ?', 'http://169.254.169.254/latest', ep.id);
    const event = fakeEvent();
    const fetches = capture();
    const msg = deliveryMessage(ws.id, ep.id, event);
    await deliverWebhooks([msg], bindings);
    expect(fetches.calls).toHaveLength(0);
    expect(msg.retry).toHaveBeenCalledWith({ delaySeconds: 5 });
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'retrying', last_error: 'unsafe_url: url points at a reserved address' });

    // The local-testing escape hatch lets a listed host through.
    await makeDue(event.id, ep.id);
    const next = deliveryMessage(ws.id, ep.id, event);
    await deliverWebhooks([next], { ...bindings, ALLOW_UNSAFE_WEBHOOK_HOSTS: 'localhost, 169.254.169.254' });
    expect(fetches.calls.map((c) => c.url)).toEqual(['http://169.254.169.254/latest']);
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'succeeded', attempts: 2 });
  });

  it('sends nothing to a deleted endpoint and drops its pending retries', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const event = fakeEvent();
    const fetches = capture(() => new Response(null, { status: 503 }));
    await deliverWebhooks([deliveryMessage(ws.id, ep.id, event)], bindings);
    expect(fetches.calls).toHaveLength(1);

    expect((await ws.api('DELETE', `/v1/webhook-endpoints/${ep.id}`)).status).toBe(204);
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'dropped', attempts: 1, next_attempt_at: null });

    const queued = deliveryMessage(ws.id, ep.id, event);
    const fresh = deliveryMessage(ws.id, ep.id, fakeEvent());
    await deliverWebhooks([queued], bindings);
    await deliverWebhooks([fresh], bindings);
    expect(fetches.calls).toHaveLength(1);
    expect(queued.ack).toHaveBeenCalledOnce();
    expect(fresh.ack).toHaveBeenCalledOnce();
    expect(queued.retry).not.toHaveBeenCalled();
  });

  it('ignores a message whose endpoint belongs to another workspace', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const ep = await registerEndpoint(other, { url: receiverUrl(), events: ['deal.created'] });
    const fetches = capture();
    const msg = deliveryMessage(ws.id, ep.id, fakeEvent());
    await deliverWebhooks([msg], bindings);
    expect(fetches.calls).toHaveLength(0);
    expect(msg.ack).toHaveBeenCalledOnce();
  });
});
