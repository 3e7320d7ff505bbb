import { expect } from 'vitest';
import { adminOk, type TestWorkspace } from '../support/harness';
import { rowsOnShards } from '../support/db';

let phoneCounter = 0;
/** A distinct valid US number per call, so each deal gets its own contact unless a test shares one. */
export const freshPhone = () => `+1202555${String(1000 + (++phoneCounter % 9000)).padStart(4, '0')}`;

export async function stagesOf(ws: TestWorkspace) {
  const res = await ws.api('GET', '/v1/pipelines');
  expect(res.status).toBe(200);
  return res.body as { id: string; name: string; is_default: boolean; stages: { id: string; name: string }[] }[];
}

export async function createDeal(ws: TestWorkspace, body: Record<string, unknown> = {}) {
  const res = await ws.api('POST', '/v1/deals', { title: 'Deal', phone: freshPhone(), ...body });
  if (res.status !== 201) throw new Error(`deal create -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const query = rowsOnShards;

export const eventsOf = (workspaceId: string, type?: string) =>
  query<{ type: string; data: string }>(
    `SELECT type, data FROM event_outbox WHERE workspace_id = ? ${type ? 'AND type = ?' : ''} ORDER BY created_at, id`,
    ...(type ? [workspaceId, type] : [workspaceId]),
  ).then((rows) => rows.map((r) => ({ type: r.type, data: JSON.parse(r.data) })));

/** Positions of a stage column, top first: stored slots counted from the column's first. */
export const column = (workspaceId: string, stageId: string) =>
  query<{ id: string; position: number }>(
    'SELECT id, position - (SELECT min(position) FROM deals WHERE workspace_id = d.workspace_id AND stage_id = d.stage_id) AS position FROM deals d WHERE workspace_id = ? AND stage_id = ? ORDER BY position',
    workspaceId,
    stageId,
  );

export const expectDense = (rows: { position: number }[]) => expect(rows.map((r) => r.position)).toEqual(rows.map((_, i) => i));

export const addUser = (ws: TestWorkspace, body: Record<string, unknown>) =>
  adminOk('POST', `/workspaces/${ws.id}/users`, { name: 'U', email: `${crypto.randomUUID()}@example.com`, ...body });

export const expectCoded = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ statusCode: status, error_code: code });
};
