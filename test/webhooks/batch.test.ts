import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { deliverWebhooks, IN_FLIGHT } from '../../src/modules/webhooks/delivery';
import { handleQueueBatch } from '../../src/wiring';
import { shardOf } from '../support/db';
import { makeWorkspace } from '../support/harness';
import { expectBoundedPlans, recordingEnv, roundTrips, type Ran } from '../support/plans';
import { captureFetch, deliveryMessage, deliveryRow, fakeEvent, receiverUrl, registerEndpoint } from './support';

let restore: (() => void) | undefined;
afterEach(() => restore?.());

describe('webhook deliveries, a batch at a time', () => {
  it('one read and one write per workspace whatever the batch holds; every statement bounded by its input', async () => {
    const a = await makeWorkspace();
    const b = await makeWorkspace();
    const endpoints = [
      await registerEndpoint(a, { url: receiverUrl() }),
      await registerEndpoint(a, { url: receiverUrl() }),
      await registerEndpoint(b, { url: receiverUrl() }),
    ];
    const fetches = captureFetch((url) => new Response(null, { status: url === endpoints[1].url ? 503 : 204 }));
    restore = fetches.restore;
    const owner = [a, a, b];
    const messages = Array.from({ length: 30 }, (_, i) => deliveryMessage(owner[i % 3].id, endpoints[i % 3].id, fakeEvent('deal.created')));
    const ran: Ran[] = [];
    await deliverWebhooks(messages, recordingEnv(ran).env);
    expect(roundTrips(ran)).toBe(4);
    expect(fetches.calls).toHaveLength(30);
    messages.forEach((m, i) => {
      if (i % 3 === 1) expect(m.retry).toHaveBeenCalledWith({ delaySeconds: 5 });
      else expect(m.ack).toHaveBeenCalledOnce();
    });
    const event = (messages[4].body as any).event;
    expect(await deliveryRow(event.id, endpoints[1].id)).toMatchObject({ state: 'retrying', attempts: 1, last_status: 503 });
    expect(await expectBoundedPlans(await shardOf(a.id), ran)).toBe(3);
  });

  it(`at most ${IN_FLIGHT} POSTs are in flight at once, each timed from its own start; all go out`, async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl() });
    let open = 0;
    let most = 0;
    const fetches = captureFetch(async () => {
      most = Math.max(most, ++open);
      await new Promise((r) => setTimeout(r, 5));
      open--;
      return new Response(null, { status: 204 });
    });
    restore = fetches.restore;
    const messages = Array.from({ length: 20 }, () => deliveryMessage(ws.id, ep.id, fakeEvent()));
    await deliverWebhooks(messages, env as unknown as Bindings);
    expect(most).toBe(IN_FLIGHT);
    expect(fetches.calls).toHaveLength(20);
    expect(messages.every((m) => m.ack.mock.calls.length === 1)).toBe(true);
  });

  it('a slow endpoint holds at most its share of the slots: endpoints take turns, so every POST to the other goes out while it stalls', async () => {
    const ws = await makeWorkspace();
    const slow = await registerEndpoint(ws, { url: receiverUrl() });
    const fast = await registerEndpoint(ws, { url: receiverUrl() });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let stalled = 0;
    let fastAtRelease = -1;
    const fetches = captureFetch(async (url) => {
      if (url === slow.url) {
        // Every slot held by the slow endpoint: nothing more can start, so this is the moment to look.
        if (++stalled === IN_FLIGHT) {
          fastAtRelease = fetches.to(fast.url).length;
          release();
        }
        await released;
      }
      return new Response(null, { status: 204 });
    });
    restore = fetches.restore;
    const messages = [
      ...Array.from({ length: 10 }, () => deliveryMessage(ws.id, slow.id, fakeEvent())),
      ...Array.from({ length: 5 }, () => deliveryMessage(ws.id, fast.id, fakeEvent())),
    ];
    await deliverWebhooks(messages, env as unknown as Bindings);
    expect(fastAtRelease).toBe(5);
    expect(fetches.calls).toHaveLength(15);
  });

  it('a delivery named twice in one batch is POSTed once, both messages acknowledged', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl() });
    const fetches = captureFetch();
    restore = fetches.restore;
    const event = fakeEvent();
    const twice = [deliveryMessage(ws.id, ep.id, event), deliveryMessage(ws.id, ep.id, event)];
    await deliverWebhooks(twice, env as unknown as Bindings);
    expect(fetches.calls).toHaveLength(1);
    expect(twice.map((m) => m.ack.mock.calls.length)).toEqual([1, 1]);
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
  });

  it('a batch whose records cannot be read retries every delivery message of it', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl() });
    const fetches = captureFetch();
    restore = fetches.restore;
    const broken = { prepare: () => ({ bind: () => ({}) }), batch: async () => Promise.reject(new Error('D1 is unavailable')) };
    const down = { ...(env as unknown as Record<string, unknown>), SHARD_0: broken, SHARD_1: broken } as unknown as Bindings;
    const batch = createMessageBatch('workspace-api-events', [
      { id: 'm-1', timestamp: new Date(), attempts: 1, body: deliveryMessage(ws.id, ep.id, fakeEvent()).body },
      { id: 'm-2', timestamp: new Date(), attempts: 1, body: deliveryMessage(ws.id, ep.id, fakeEvent()).body },
    ]);
    await handleQueueBatch(batch, down);
    const result = await getQueueResult(batch, createExecutionContext());
    expect(result.retryMessages.map((m) => m.msgId).sort()).toEqual(['m-1', 'm-2']);
    expect(result.explicitAcks).toEqual([]);
    expect(fetches.calls).toHaveLength(0);
  });
});
