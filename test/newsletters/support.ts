import { adminOk, type TestWorkspace } from '../support/harness';

export const MARKDOWN = { markdown: '# Hello [[first_name : there]]\n\nThis week in the shop.' };

export async function newsletter(ws: TestWorkspace, name = `News ${crypto.randomUUID().slice(0, 8)}`) {
  const res = await ws.api('POST', '/v1/newsletters', { name });
  if (res.status !== 201) throw new Error(`newsletter create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; slug?: string };
}

/** A ready issue (subject and compiled content). */
export async function readyIssue(
  ws: TestWorkspace,
  newsletterId: string,
  subject = 'Weekly [[first_name : friend]]',
  extra: Record<string, unknown> = {},
) {
  const res = await ws.api('POST', `/v1/newsletters/${newsletterId}/issues`, { subject, content: MARKDOWN, ...extra });
  if (res.status !== 201) throw new Error(`issue create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string };
}

export const subscribe = (ws: TestWorkspace, newsletterId: string, contactId: string) =>
  adminOk('POST', `/workspaces/${ws.id}/newsletters/${newsletterId}/subscriptions`, { contact_id: contactId });

export const future = (minutes = 60) => new Date(Date.now() + minutes * 60_000).toISOString();
