import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { deliverWebhooks } from '../../src/modules/webhooks/delivery';
import { publishEvents } from '../../src/modules/webhooks/publisher';
import { REDRIVE_GRACE_MS, REDRIVE_HOLD_MS } from '../../src/modules/webhooks/redrive';
import { sweepOutbox } from '../../src/modules/webhooks/sweep';
import { shardDb } from '../../src/platform/d1/shards';
import { controlD1, runOnShards, shardOf } from '../support/db';
import { eventually, makeWorkspace, type TestWorkspace } from '../support/harness';
import { expectBoundedPlans, type Ran, recordingEnv } from '../support/plans';
import {
  captureFetch,
  dataDb,
  deliveryMessage,
  deliveryRow,
  emitEvent,
  type FakeMessage,
  queueMessage,
  receiverUrl,
  recordingQueueEnv,
  registerEndpoint,
} from './support';

const bindings = env as unknown as Bindings;
let restore: (() => void) | undefined;
afterEach(() => restore?.());

function capture(answer?: Parameters<typeof captureFetch>[0]) {
  const c = captureFetch(answer);
  restore = c.restore;
  return c;
}

/** The POSTs a receiver got, counted per `webhook-id`. */
const postsPerId = (calls: { headers: Record<string, string> }[]) => {
  const counts: Record<string, number> = {};
  for (const c of calls) counts[c.headers['webhook-id']] = (counts[c.headers['webhook-id']] ?? 0) + 1;
  return counts;
};

/** Moves a delivery's time (when it became pending, or its next attempt) `ms` into the past, as waiting would. */
async function overdue(eventId: string, endpointId: string, ms = REDRIVE_GRACE_MS + 30_000) {
  const then = new Date(Date.now() - ms).toISOString();
  await runOnShards(
    'UPDATE webhook_deliveries SET updated_at = ?, next_attempt_at = CASE WHEN next_attempt_at IS NULL THEN NULL ELSE ? END WHERE event_id = ? AND endpoint_id = ?',
    then,
    then,
    eventId,
    endpointId,
  );
}

/** A workspace with one endpoint, and an event whose fan-out reached a queue that lost its message: the delivery stays `pending`. */
async function lostDelivery(ws?: TestWorkspace) {
  ws ??= await makeWorkspace();
  const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
  const event = await emitEvent(ws.id, 'deal.created', { deal_id: crypto.randomUUID() });
  const lost = recordingQueueEnv();
  await publishEvents(lost.env, await dataDb(ws.id), [event.id]);
  expect(lost.sent).toHaveLength(1);
  expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'pending', attempts: 0 });
  return { ws, ep, event };
}

/** One sweep of the workspace's shard with a queue that keeps what it is sent; answers the sweep's result and the messages for `eventId`. */
async function sweep(workspaceId: string, eventId: string, now?: number) {
  const q = recordingQueueEnv();
  const result = await sweepOutbox(q.env, await dataDb(workspaceId), now);
  return { result, sent: q.sent.filter((m) => m.event.id === eventId) };
}

describe('the outbox sweep re-drives deliveries whose message was lost', () => {
  it('a lost pending delivery is sent again once it is overdue, and delivered once', async () => {
    const { ws, ep, event } = await lostDelivery();
    // Not yet overdue: its message may still be on its way.
    expect((await sweep(ws.id, event.id)).sent).toEqual([]);
    await overdue(event.id, ep.id);
    const first = await sweep(ws.id, event.id);
    expect(first.result.deliveries_redriven).toBeGreaterThanOrEqual(1);
    expect(first.result).toMatchObject({ events: expect.any(Number), messages: expect.any(Number) });
    expect(first.sent).toEqual([
      {
        kind: 'webhook-delivery',
        workspace_id: ws.id,
        endpoint_id: ep.id,
        event: { id: event.id, type: 'deal.created', created_at: event.createdAt, data: event.data },
        ...(first.sent[0].bookmark ? { bookmark: first.sent[0].bookmark } : {}),
      },
    ]);
    const fetches = capture();
    const message = queueMessage(first.sent[0]);
    await deliverWebhooks([message], bindings);
    expect(postsPerId(fetches.calls)).toEqual({ [event.id]: 1 });
    expect(message.ack).toHaveBeenCalledOnce();
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'succeeded', attempts: 1, held_until: null, held_by: null });
    // Finished: no sweep sends it again, however late.
    expect((await sweep(ws.id, event.id, Date.now() + REDRIVE_HOLD_MS * 2)).sent).toEqual([]);
  });

  it('a lost retry is sent again once overdue: the attempt count goes on', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const event = await emitEvent(ws.id, 'deal.created', { deal_id: crypto.randomUUID() });
    const failing = capture(() => new Response(null, { status: 500 }));
    const original = deliveryMessage(ws.id, ep.id, event);
    await deliverWebhooks([original], bindings);
    expect(original.retry).toHaveBeenCalledWith({ delaySeconds: 5 });
    failing.restore();
    // The queue loses the retried message. Until the retry is due and the grace has passed, the sweep leaves it.
    expect((await sweep(ws.id, event.id)).sent).toEqual([]);
    await overdue(event.id, ep.id);
    const { sent } = await sweep(ws.id, event.id);
    expect(sent.map((m) => [m.event.id, m.endpoint_id])).toEqual([[event.id, ep.id]]);
    const fetches = capture();
    await deliverWebhooks([queueMessage(sent[0])], bindings);
    expect(postsPerId(fetches.calls)).toEqual({ [event.id]: 1 });
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'succeeded', attempts: 2, last_status: 204, next_attempt_at: null });
  });

  it('two sweeps in parallel, and sweeps after them while the re-sent message is queued, send one message; a lost re-send is sent again', async () => {
    const { ws, ep, event } = await lostDelivery();
    await overdue(event.id, ep.id);
    const [a, b] = await Promise.all([sweep(ws.id, event.id), sweep(ws.id, event.id)]);
    expect([...a.sent, ...b.sent]).toHaveLength(1);
    expect((await sweep(ws.id, event.id)).sent).toEqual([]);
    expect((await sweep(ws.id, event.id, Date.now() + REDRIVE_HOLD_MS / 2)).sent).toEqual([]);
    // The re-sent message never came either (a second crash): the sweep two minutes on sends another.
    const later = await sweep(ws.id, event.id, Date.now() + 2 * 60_000);
    expect(later.sent).toHaveLength(1);
    const fetches = capture();
    await deliverWebhooks([queueMessage(later.sent[0])], bindings);
    expect(postsPerId(fetches.calls)).toEqual({ [event.id]: 1 });
  });

  it('a delivery a consumer is attempting is not re-driven while it holds it', async () => {
    const { ws, ep, event } = await lostDelivery();
    await overdue(event.id, ep.id);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const fetches = capture(async () => {
      await released;
      return new Response(null, { status: 204 });
    });
    // The fan-out's message was only late: a consumer takes it and is still waiting for the receiver.
    const late = deliveryMessage(ws.id, ep.id, event);
    const attempt = deliverWebhooks([late], bindings);
    await eventually(
      async () => fetches.calls.length,
      (n) => n === 1,
    );
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'pending', held_by: expect.any(String), held_until: expect.any(String) });
    expect((await sweep(ws.id, event.id)).sent).toEqual([]);
    // A copy of its message arriving meanwhile is acknowledged without a request.
    const copy = deliveryMessage(ws.id, ep.id, event);
    await deliverWebhooks([copy], bindings);
    expect(copy.ack).toHaveBeenCalledOnce();
    release();
    await attempt;
    expect(late.ack).toHaveBeenCalledOnce();
    expect(postsPerId(fetches.calls)).toEqual({ [event.id]: 1 });
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'succeeded', attempts: 1, held_by: null, held_until: null });
  });

  it('a hold whose consumer died ends: the delivery is re-driven after it', async () => {
    const { ws, ep, event } = await lostDelivery();
    await overdue(event.id, ep.id);
    const expired = new Date(Date.now() - 1000).toISOString();
    const live = new Date(Date.now() + 60_000).toISOString();
    await runOnShards('UPDATE webhook_deliveries SET held_by = ?, held_until = ? WHERE event_id = ?', 'a-consumer', live, event.id);
    expect((await sweep(ws.id, event.id)).sent).toEqual([]);
    await runOnShards('UPDATE webhook_deliveries SET held_until = ? WHERE event_id = ?', expired, event.id);
    const { sent } = await sweep(ws.id, event.id);
    expect(sent).toHaveLength(1);
    const fetches = capture();
    await deliverWebhooks([queueMessage(sent[0])], bindings);
    expect(postsPerId(fetches.calls)).toEqual({ [event.id]: 1 });
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'succeeded', attempts: 1, held_by: null });
  });

  it('an outcome is recorded only under its own hold: a consumer that outlived its hold writes nothing over the next holder', async () => {
    const { ws, ep, event } = await lostDelivery();
    await overdue(event.id, ep.id);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const fetches = capture(async () => {
      // The first consumer's receiver answers after everything else; the second one's fails at once.
      if (fetches.calls.length === 1) {
        await released;
        return new Response(null, { status: 204 });
      }
      return new Response(null, { status: 500 });
    });
    const slow = deliveryMessage(ws.id, ep.id, event);
    const first = deliverWebhooks([slow], bindings);
    await eventually(
      async () => fetches.calls.length,
      (n) => n === 1,
    );
    // Its hold runs out (far longer than any attempt in real life): the sweep sends the delivery again and another consumer takes it.
    await runOnShards('UPDATE webhook_deliveries SET held_until = ? WHERE event_id = ?', new Date(Date.now() - 1000).toISOString(), event.id);
    const { sent } = await sweep(ws.id, event.id);
    expect(sent).toHaveLength(1);
    const next = queueMessage(sent[0]);
    await deliverWebhooks([next], bindings);
    expect(next.retry).toHaveBeenCalledWith({ delaySeconds: 5 });
    release();
    await first;
    expect(slow.ack).toHaveBeenCalledOnce();
    expect(slow.retry).not.toHaveBeenCalled();
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'retrying', attempts: 1, last_status: 500, held_by: null });
  });

  it('a re-driven message racing the original one delivers once: together in a batch, in parallel batches, or one after the other', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const fetches = capture();
    const cases: [string, (original: FakeMessage, redriven: FakeMessage) => Promise<unknown>][] = [
      ['one batch', (o, r) => deliverWebhooks([o, r], bindings)],
      ['parallel batches', (o, r) => Promise.all([deliverWebhooks([o], bindings), deliverWebhooks([r], bindings)])],
      [
        'original first',
        async (o, r) => {
          await deliverWebhooks([o], bindings);
          await deliverWebhooks([r], bindings);
        },
      ],
      [
        're-driven first',
        async (o, r) => {
          await deliverWebhooks([r], bindings);
          await deliverWebhooks([o], bindings);
        },
      ],
    ];
    for (const [name, deliver] of cases) {
      const event = await emitEvent(ws.id, 'deal.created', { deal_id: crypto.randomUUID() });
      const lost = recordingQueueEnv();
      await publishEvents(lost.env, await dataDb(ws.id), [event.id]);
      const original = queueMessage(lost.sent[0]);
      await overdue(event.id, ep.id);
      const { sent } = await sweep(ws.id, event.id);
      expect(sent).toHaveLength(1);
      const redriven = queueMessage(sent[0]);
      await deliver(original, redriven);
      expect(postsPerId(fetches.to(ep.url))[event.id], name).toBe(1);
      expect(original.ack).toHaveBeenCalledOnce();
      expect(redriven.ack).toHaveBeenCalledOnce();
      expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
    }
  });

  it('when the raced attempt fails, one message goes on retrying and the other is dropped', async () => {
    const { ws, ep, event } = await lostDelivery();
    // The fan-out's message, late rather than lost.
    const original = deliveryMessage(ws.id, ep.id, event);
    await overdue(event.id, ep.id);
    const { sent } = await sweep(ws.id, event.id);
    const redriven = queueMessage(sent[0]);
    const fetches = capture(() => new Response(null, { status: 500 }));
    await Promise.all([deliverWebhooks([original], bindings), deliverWebhooks([redriven], bindings)]);
    expect(postsPerId(fetches.calls)).toEqual({ [event.id]: 1 });
    const retried = [original, redriven].filter((m) => m.retry.mock.calls.length === 1);
    expect(retried).toHaveLength(1);
    expect(retried[0].retry).toHaveBeenCalledWith({ delaySeconds: 5 });
    expect([original, redriven].filter((m) => m.ack.mock.calls.length === 1)).toHaveLength(1);
    expect(await deliveryRow(event.id, ep.id)).toMatchObject({ state: 'retrying', attempts: 1, held_by: null });
    // The dropped one's copy arriving before the retry is due is acknowledged unsent.
    const early = queueMessage(sent[0]);
    await deliverWebhooks([early], bindings);
    expect(early.ack).toHaveBeenCalledOnce();
    expect(fetches.calls).toHaveLength(1);
  });

  it('leaves finished deliveries (succeeded, dead, dropped) and deliveries of endpoints that are gone', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.won'] });
    const shard = await shardOf(ws.id);
    const old = new Date(Date.now() - 3_600_000).toISOString();
    const rows = ['succeeded', 'dead', 'dropped'].map((state) => ({ state, event: crypto.randomUUID() }));
    for (const { state, event } of rows)
      await shard
        .prepare(
          `INSERT INTO webhook_deliveries (id, workspace_id, event_id, event_type, endpoint_id, url, state, attempts, next_attempt_at, created_at, updated_at)
           VALUES (?, ?, ?, 'deal.created', ?, ?, ?, 3, ?, ?, ?)`,
        )
        .bind(crypto.randomUUID(), ws.id, event, ep.id, ep.url, state, old, old, old)
        .run();
    const before = await Promise.all(rows.map((r) => deliveryRow(r.event, ep.id)));
    for (const r of rows) expect((await sweep(ws.id, r.event)).sent).toEqual([]);
    expect(await Promise.all(rows.map((r) => deliveryRow(r.event, ep.id)))).toEqual(before);

    // An endpoint deleted: its deliveries are dropped with it, and nothing is sent again.
    const gone = await lostDelivery(ws);
    await overdue(gone.event.id, gone.ep.id);
    expect((await ws.api('DELETE', `/v1/webhook-endpoints/${gone.ep.id}`)).status).toBe(204);
    expect((await sweep(ws.id, gone.event.id)).sent).toEqual([]);
    expect(await deliveryRow(gone.event.id, gone.ep.id)).toMatchObject({ state: 'dropped' });
  });

  it('re-sends a lost test event as it was sent, and dead-letters a delivery whose event is no longer kept', async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const shard = await shardOf(ws.id);
    const old = new Date(Date.now() - 3_600_000).toISOString();
    const test = crypto.randomUUID();
    const forgotten = crypto.randomUUID();
    for (const [event, type] of [
      [test, 'webhook.test'],
      [forgotten, 'deal.created'],
    ])
      await shard
        .prepare(
          `INSERT INTO webhook_deliveries (id, workspace_id, event_id, event_type, endpoint_id, url, state, attempts, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
        )
        .bind(crypto.randomUUID(), ws.id, event, type, ep.id, ep.url, old, old)
        .run();
    const q = recordingQueueEnv();
    const result = await sweepOutbox(q.env, await dataDb(ws.id));
    expect(result.deliveries_dead_lettered).toBeGreaterThanOrEqual(1);
    expect(q.sent.filter((m) => m.event.id === forgotten)).toEqual([]);
    expect(await deliveryRow(forgotten, ep.id)).toMatchObject({
      state: 'dead',
      last_error: 'event no longer kept: not sent again',
      held_until: null,
    });
    const [resent] = q.sent.filter((m) => m.event.id === test);
    expect(resent.event).toEqual({ id: test, type: 'webhook.test', created_at: old, data: { endpoint_id: ep.id } });
    const fetches = capture();
    await deliverWebhooks([queueMessage(resent)], bindings);
    expect(postsPerId(fetches.calls)).toEqual({ [test]: 1 });
  });

  it("leaves the deliveries of a workspace whose copy is arriving on the shard to the source's sweep", async () => {
    const { ws, ep, event } = await lostDelivery();
    await overdue(event.id, ep.id);
    const shard = await shardOf(ws.id);
    await shard.prepare("INSERT INTO move_marks (workspace_id, move_id, role) VALUES (?, ?, 'arriving')").bind(ws.id, crypto.randomUUID()).run();
    try {
      expect((await sweep(ws.id, event.id)).sent).toEqual([]);
    } finally {
      await shard.prepare('DELETE FROM move_marks WHERE workspace_id = ?').bind(ws.id).run();
    }
    expect((await sweep(ws.id, event.id)).sent).toHaveLength(1);
  });

  it('walks the due deliveries by their index: every statement of a sweep is bounded by what it takes', async () => {
    const { ws, ep, event } = await lostDelivery();
    await overdue(event.id, ep.id);
    const ran: Ran[] = [];
    const rec = recordingEnv(ran);
    const { shard: name } = (await controlD1().prepare('SELECT shard FROM workspaces WHERE id = ?').bind(ws.id).first<{ shard: string }>())!;
    await sweepOutbox(rec.env, shardDb(rec.env, name));
    expect(rec.events.filter((m) => m.event.id === event.id)).toHaveLength(1);
    expect(ran.some((r) => /UPDATE webhook_deliveries SET held_until/.test(r.sql))).toBe(true);
    await expectBoundedPlans(await shardOf(ws.id), ran);
  });
});
