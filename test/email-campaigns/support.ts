import { expect } from 'vitest';
import { startCampaign } from '../../src/modules/email-campaigns/launch';
import { workspaceDb } from '../../src/platform/d1/shards';
import { rowsIn, shardOf } from '../support/db';
import { eventually, type TestWorkspace } from '../support/harness';
import { recordingEnv, type Ran } from '../support/plans';

export const MARKDOWN = '# Hello [[first_name : there]]\n\nNews for [[company_name : your team]].';

/** A contact with email consent `subscribed` (and any extra fields). */
export async function subscribedContact(ws: TestWorkspace, email: string, fields: Record<string, unknown> = {}) {
  const c = await ws.api('POST', '/v1/contacts', { email, ...fields });
  await ws.api('PUT', `/v1/contacts/${c.body.id}/consent/email`, { state: 'subscribed' });
  return c.body.id as string;
}

/** A complete draft (subject, content; the workspace's default sender). */
export async function readyCampaign(ws: TestWorkspace, extra: Record<string, unknown> = {}) {
  const res = await ws.api('POST', '/v1/email-campaigns', {
    name: 'Spring',
    subject: 'Hi [[first_name : there]]',
    content: { markdown: MARKDOWN },
    ...extra,
  });
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

/** `count` subscribed contacts written straight to the shard, their creation times shared in threes (ties the keyset must break by id). */
export async function bulkSubscribers(ws: TestWorkspace, count: number) {
  const db = await shardOf(ws.id);
  const ids = Array.from({ length: count }, () => crypto.randomUUID());
  for (let i = 0; i < count; i += 100) {
    await db.batch(
      ids.slice(i, i + 100).map((id, k) => {
        const at = new Date(Date.UTC(2025, 0, 1) + Math.floor((i + k) / 3) * 1000).toISOString();
        return db
          .prepare(
            `INSERT INTO contacts (id, workspace_id, email, first_name, email_consent_state, block_state, custom_fields, created_at, updated_at) VALUES (?, ?, ?, 'Bulk', 'subscribed', 'none', '{}', ?, ?)`,
          )
          .bind(id, ws.id, `bulk${i + k}@example.com`, at, at);
      }),
    );
  }
  return ids;
}

/**
 * A sending campaign whose queue messages are held (`rec.sent`): pages run only when the test hands
 * them over. `rec` may be shared, so several workspaces' sends wait in one queue.
 */
export async function heldCampaign(ws: TestWorkspace, ran: Ran[] = [], rec = recordingEnv(ran)) {
  const c = await readyCampaign(ws);
  expect(await startCampaign(rec.env, (await workspaceDb(rec.env, ws.id))!, ws.id, c.id, 'https://links.example')).not.toBeNull();
  return { c, rec };
}

/** How many emails the sandbox accepted for the workspace, and to how many addresses. */
export async function mailCount(ws: TestWorkspace) {
  const [row] = await rowsIn<{ mails: number; addresses: number }>(
    ws.id,
    `SELECT count(*) AS mails, count(DISTINCT "to") AS addresses FROM sandbox_outbox WHERE workspace_id = ? AND channel = 'email'`,
    ws.id,
  );
  return row;
}
