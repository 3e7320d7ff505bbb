import { expect } from 'vitest';
import { adminOk, eventually, makeWorkspace, type TestWorkspace } from '../support/harness';

/** A workspace scoring with `rules` (no decay unless given), its per-key limit lifted for polling. */
export async function scoringWorkspace(rules: unknown[], halfLifeDays: number | null = null, settings: Record<string, unknown> = {}) {
  const ws = await makeWorkspace(settings, { bulk: true });
  await adminOk('PUT', `/workspaces/${ws.id}/scoring`, { enabled: true, rules, half_life_days: halfLifeDays });
  await settled(ws);
  return ws;
}

/** Waits until the workspace's background rescoring is done. */
export const settled = (ws: TestWorkspace) =>
  eventually(
    () => adminOk('GET', `/workspaces/${ws.id}/scoring`),
    (c) => !c.rescoring,
  );

/** The contact as `GET /v1/contacts/{id}` answers it, once its `lead_score` is `score`. */
export async function scoreBecomes(ws: TestWorkspace, contactId: string, score: number | null) {
  const res = await eventually(
    () => ws.api('GET', `/v1/contacts/${contactId}`),
    (r) => r.status === 200 && r.body.lead_score === score,
  );
  return res.body;
}

export async function ok(ws: TestWorkspace, method: string, path: string, body?: unknown) {
  const res = await ws.api(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

export const freshEmail = () => `${crypto.randomUUID()}@example.com`;
