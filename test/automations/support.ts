import { expect } from 'vitest';
import { eventually, makeWorkspace as workspace, type TestWorkspace } from '../support/harness';

/** A workspace with an active automation made of `definition` (trigger defaults to `manual`). */
export async function activeAutomation(ws: TestWorkspace, definition: Record<string, unknown>) {
  const created = await ws.api('POST', '/v1/automations', { name: 'Test automation', trigger: { event: 'manual' }, steps: [], ...definition });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const activated = await ws.api('POST', `/v1/automations/${created.body.id}/activate`);
  expect(activated.status, JSON.stringify(activated.body)).toBe(200);
  return activated.body as { id: string; version: number };
}

export async function contactOf(ws: TestWorkspace, fields: Record<string, unknown> = {}) {
  const res = await ws.api('POST', '/v1/contacts', { email: `c-${crypto.randomUUID().slice(0, 8)}@example.com`, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body as { id: string; email: string };
}

/** The enrollment once it ended (or met `until`), with its step history. */
export function enrollmentWhen(ws: TestWorkspace, id: string, until: (e: any) => boolean = (e) => e.status !== 'active') {
  return eventually(
    async () => (await ws.api('GET', `/v1/automation-enrollments/${id}`)).body,
    (e) => e && until(e),
  );
}

/** The automation's enrollments, once there are `count` of them. */
export function enrollmentsOf(ws: TestWorkspace, automationId: string, count = 1) {
  return eventually(
    async () => (await ws.api('GET', `/v1/automations/${automationId}/enrollments`)).body,
    (page) => page?.data?.length >= count,
  );
}

/** A workspace whose key is not rate limited: the tests poll enrollments while their runs go on. */
export const makeWorkspace = (settings: Record<string, unknown> = {}) => workspace(settings, { bulk: true });

/** A contact with email consent `subscribed`. */
export async function subscribed(ws: TestWorkspace, fields: Record<string, unknown> = {}) {
  const contact = await contactOf(ws, fields);
  await ws.api('PUT', `/v1/contacts/${contact.id}/consent/email`, { state: 'subscribed' });
  return contact;
}
