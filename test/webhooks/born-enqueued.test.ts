import { describe, expect, it } from 'vitest';
// The composition root hands the webhook module's publisher and subscription check to the event outbox.
import '../../src/wiring';
import { EventSink } from '../../src/platform/outbox';
import { rowOnShards, runOnShards } from '../support/db';
import { makeWorkspace } from '../support/harness';
import { dataDb, emitEvent, receiverUrl, registerEndpoint } from './support';

const enqueuedAt = async (id: string) =>
  (await rowOnShards<{ enqueued_at: string | null }>('SELECT enqueued_at FROM event_outbox WHERE id = ?', id))?.enqueued_at;

/**
 * An event no active endpoint of its workspace subscribes to would fan out to
 * nothing: the emitting batch stores it already enqueued, and the request
 * skips the fan-out after the response.
 */
describe('events nobody subscribes to', () => {
  it('are stored enqueued by the batch that emits them; a subscribed one waits for its fan-out', async () => {
    const ws = await makeWorkspace();
    const before = await emitEvent(ws.id, 'deal.created');
    expect(await enqueuedAt(before.id)).toBe(before.createdAt);

    const endpoint = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created', 'email.failed'] });
    const heard = await emitEvent(ws.id, 'deal.created');
    expect(await enqueuedAt(heard.id)).toBeNull();
    // Another type, a deprecated type (never delivered), another workspace's endpoint: nobody listens.
    const otherType = await emitEvent(ws.id, 'contact.created');
    expect(await enqueuedAt(otherType.id)).toBe(otherType.createdAt);
    const deprecated = await emitEvent(ws.id, 'email.failed');
    expect(await enqueuedAt(deprecated.id)).toBe(deprecated.createdAt);
    const elsewhere = await makeWorkspace();
    const foreign = await emitEvent(elsewhere.id, 'deal.created');
    expect(await enqueuedAt(foreign.id)).toBe(foreign.createdAt);

    // An inactive endpoint listens to nothing.
    await runOnShards('UPDATE webhook_endpoints SET is_active = 0 WHERE id = ?', endpoint.id);
    const paused = await emitEvent(ws.id, 'deal.created');
    expect(await enqueuedAt(paused.id)).toBe(paused.createdAt);
  });

  it('leave nothing pending in a watched batch; an unwatched batch leaves every event to the publisher', async () => {
    const ws = await makeWorkspace();
    await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const sink = new EventSink();
    const db = sink.watch(await dataDb(ws.id));
    const heard = sink.emit(db, ws.id, 'deal.created', {});
    const quiet = sink.emit(db, ws.id, 'contact.created', {});
    await db.batch([heard.statement, quiet.statement]);
    sink.committedAfter([heard.event, quiet.event]);
    expect(sink.pending()).toEqual([heard.event.id]);

    const unwatched = new EventSink();
    const raw = await dataDb(ws.id);
    const a = unwatched.emit(raw, ws.id, 'contact.created', {});
    await raw.batch([a.statement]);
    unwatched.committedAfter([a.event]);
    expect(unwatched.pending()).toEqual([a.event.id]);
    expect(await enqueuedAt(a.event.id)).toBe(a.event.createdAt);
  });
});
