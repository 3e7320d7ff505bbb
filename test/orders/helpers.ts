import { expect } from 'vitest';
import { rowsIn } from '../support/db';
import type { TestWorkspace } from '../support/harness';

let phoneCounter = 0;
export const freshPhone = () => `+1202557${String(1000 + (++phoneCounter % 9000)).padStart(4, '0')}`;

export async function createOrder(ws: TestWorkspace, body: Record<string, unknown> = {}) {
  const res = await ws.api('POST', '/v1/orders', { phone: freshPhone(), items: [{ title: 'Thing', unit_price: 10 }], ...body });
  if (res.status !== 201) throw new Error(`order create -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const expectMessage = (res: { status: number; body: any }, status: number, message: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ statusCode: status, message });
};

export const expectCode = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ statusCode: status, error_code: code });
};

/** The workspace's `order.*` outbox rows in the order they were written. */
export async function orderEvents(workspaceId: string) {
  const rows = await rowsIn<{ id: string; type: string; created_at: string; data: string }>(
    workspaceId,
    "SELECT id, type, created_at, data FROM event_outbox WHERE workspace_id = ? AND type LIKE 'order.%' ORDER BY rowid",
    workspaceId,
  );
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) }));
}
