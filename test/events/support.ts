import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, expect } from 'vitest';
import { eventually, makeWorkspace, type TestWorkspace } from '../support/harness';
import { captureFetch, receiverUrl, registerEndpoint } from '../webhooks/support';
import { shardOf } from '../support/db';

export type Delivered = { id: string; type: string; created_at: string; data: any };
export type Endpoint = { id: string; url: string; secret: string; events: string[] };
export type OutboxRow = { id: string; type: string; created_at: string; data: any };

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Captures outbound fetch for the whole test: the queue consumer delivers in this isolate. */
export function useReceiver() {
  let capture: ReturnType<typeof captureFetch>;
  beforeEach(() => {
    capture = captureFetch();
  });
  afterEach(() => capture.restore());
  return {
    /** Waits for `count` deliveries to the endpoint, checks each signature and envelope, and returns the bodies in arrival order. */
    async received(ep: Endpoint, count: number): Promise<Delivered[]> {
      const calls = await eventually(
        async () => capture.to(ep.url),
        (c) => c.length >= count,
        15_000,
      );
      return calls.map((call) => {
        const verified = new Webhook(ep.secret).verify(call.body, call.headers) as Delivered;
        expect(Object.keys(verified).sort()).toEqual(['created_at', 'data', 'id', 'type']);
        expect(call.headers['webhook-id']).toBe(verified.id);
        expect(verified.created_at).toMatch(ISO_UTC);
        return verified;
      });
    },
    /** Every delivery made to the endpoint so far. */
    sentTo: (ep: Endpoint) => capture.to(ep.url).map((c) => JSON.parse(c.body) as Delivered),
  };
}

/** A workspace with one endpoint listing `events` (or the default subscription). */
export async function subscribed(events?: string[], settings: Record<string, unknown> = {}): Promise<{ ws: TestWorkspace; ep: Endpoint }> {
  const ws = await makeWorkspace(settings);
  const ep = await registerEndpoint(ws, { url: receiverUrl(), ...(events ? { events } : {}) });
  return { ws, ep };
}

/** The workspace's outbox rows, oldest first; `type` may name a family as `deal.*`. */
export const outbox = async (workspaceId: string, type?: string): Promise<OutboxRow[]> => {
  const sql = `SELECT id, type, created_at, data FROM event_outbox WHERE workspace_id = ? ${type ? 'AND type LIKE ?' : ''} ORDER BY created_at, id`;
  const { results } = await (await shardOf(workspaceId))
    .prepare(sql)
    .bind(...(type ? [workspaceId, type.replace('*', '%')] : [workspaceId]))
    .all<{ id: string; type: string; created_at: string; data: string }>();
  return results.map((r) => ({ ...r, data: JSON.parse(r.data) }));
};

/** The delivered envelope is the outbox row: same id, type, time and data. */
export function expectFromOutbox(delivered: Delivered, row: OutboxRow) {
  expect(delivered).toEqual({ id: row.id, type: row.type, created_at: row.created_at, data: row.data });
}

let phoneCounter = 0;
export const freshPhone = () => `+1415555${String(1000 + (++phoneCounter % 9000)).padStart(4, '0')}`;
export const freshEmail = () => `${crypto.randomUUID().slice(0, 12)}@example.com`;
