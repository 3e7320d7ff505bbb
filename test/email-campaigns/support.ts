import { eventually, type TestWorkspace } from '../support/harness';

export const MARKDOWN = '# Hello [[first_name : there]]\n\nNews for [[company_name : your team]].';

/** A contact with email consent `subscribed` (and any extra fields). */
export async function subscribedContact(ws: TestWorkspace, email: string, fields: Record<string, unknown> = {}) {
  const c = await ws.api('POST', '/v1/contacts', { email, ...fields });
  await ws.api('PUT', `/v1/contacts/${c.body.id}/consent/email`, { state: 'subscribed' });
  return c.body.id as string;
}

/** A complete draft (subject, content; the workspace's default sender). */
export async function readyCampaign(ws: TestWorkspace, extra: Record<string, unknown> = {}) {
  const res = await ws.api('POST', '/v1/email-campaigns', { name: 'Spring', subject: 'Hi [[first_name : there]]', content: { markdown: MARKDOWN }, ...extra });
  if (res.status !== 201) throw new Error(`campaign create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Waits until the campaign left `sending`. */
export const finished = (ws: TestWorkspace, id: string) =>
  eventually(
    async () => (await ws.api('GET', `/v1/email-campaigns/${id}`)).body,
    (c) => c.status !== 'sending',
    20_000,
  );
