import { adminOk, type TestWorkspace } from '../support/harness';
import { rowsOnShards, shardOf } from '../support/db';

export type OutboxRow = { id: string; type: string; data: any };

/** Events written to the outbox for a workspace, oldest first. */
export async function outbox(workspaceId: string, type?: string): Promise<OutboxRow[]> {
  const { results } = await (await shardOf(workspaceId)).prepare('SELECT id, type, data FROM event_outbox WHERE workspace_id = ? ORDER BY created_at, id').bind(workspaceId).all<any>();
  return results.map((r) => ({ ...r, data: JSON.parse(r.data) })).filter((r) => !type || r.type === type);
}

export const rows = rowsOnShards;

export async function createContact(ws: TestWorkspace, body: Record<string, unknown>) {
  const res = await ws.api('POST', '/v1/contacts', body);
  if (res.status !== 201) throw new Error(`create contact -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const blacklist = (ws: TestWorkspace, phone: string) => adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone });

export const filterQuery = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;
