import { compileList, type ListQuery } from '../../src/modules/contacts/list';
import type { ServiceContext } from '../../src/platform/context';
import { adminOk, type TestWorkspace } from '../support/harness';
import { rowsOnShards, shardOf } from '../support/db';

export type OutboxRow = { id: string; type: string; data: any };

/** Events written to the outbox for a workspace, oldest first. */
export async function outbox(workspaceId: string, type?: string): Promise<OutboxRow[]> {
  const { results } = await (await shardOf(workspaceId))
    .prepare('SELECT id, type, data FROM event_outbox WHERE workspace_id = ? ORDER BY created_at, id')
    .bind(workspaceId)
    .all<any>();
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

type PlanRow = { id: number; parent: number; detail: string };

/**
 * `EXPLAIN QUERY PLAN` of the one statement `GET /v1/contacts` runs for `query`, on the workspace's shard.
 * Its first row (the total) is the compound's `LEFT` arm, the page its `RIGHT` one.
 */
export async function listPlan(ws: TestWorkspace, query: ListQuery): Promise<PlanRow[]> {
  const { statement } = await compileList({ ws: { id: ws.id, defaultCountry: 'US' } } as ServiceContext, query);
  return (
    await (
      await shardOf(ws.id)
    )
      .prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
      .bind(...statement.params)
      .all<PlanRow>()
  ).results;
}

/** The plan lines below the first line reading `top` (its subtree). */
export function planUnder(plan: PlanRow[], top: string): string[] {
  const root = plan.find((row) => row.detail === top);
  if (!root) throw new Error(`no plan line reads "${top}":\n${plan.map((r) => r.detail).join('\n')}`);
  const inside = new Set([root.id]);
  const lines: string[] = [];
  for (const row of plan) {
    if (!inside.has(row.parent)) continue;
    inside.add(row.id);
    lines.push(row.detail);
  }
  return lines;
}
