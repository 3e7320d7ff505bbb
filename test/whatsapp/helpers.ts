import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import { startCampaign } from '../../src/modules/whatsapp/campaigns';
import { workspaceDb } from '../../src/platform/d1/shards';
import { adminOk, call, makeWorkspace, type TestWorkspace } from '../support/harness';
import { rowsIn, shardOf } from '../support/db';
import type { recordingEnv } from '../support/plans';

export const APP_SECRET = 'test-whatsapp-app-secret';
export const VERIFY_TOKEN = 'test-whatsapp-verify-token';

/** A workspace with the campaigns feature (default: every feature) and a unique WhatsApp number. */
export async function waWorkspace(settings: Record<string, unknown> = {}): Promise<TestWorkspace & { phoneNumberId: string }> {
  const phoneNumberId = `pn-${crypto.randomUUID()}`;
  const ws = await makeWorkspace({ whatsapp_phone_number_id: phoneNumberId, ...settings }, { pipeline: false });
  return { ...ws, phoneNumberId };
}

export async function template(ws: { id: string }, body: Record<string, unknown> = {}) {
  return adminOk('POST', `/workspaces/${ws.id}/templates`, {
    name: `tpl_${crypto.randomUUID().slice(0, 8)}`,
    language: 'en_US',
    category: 'marketing',
    body: 'Hi {{1}}, use code {{2}}',
    ...body,
  });
}

/** A running campaign to `count` subscribed contacts written straight to the shard, its queue messages held in `rec`: pages run only when a test hands them over. */
export async function heldWhatsAppCampaign(count: number, rec: ReturnType<typeof recordingEnv>) {
  const ws = await waWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
  const t = await template(ws, { body: 'Hi {{1}}' });
  const db = await shardOf(ws.id);
  for (let i = 0; i < count; i += 100) {
    await db.batch(
      Array.from({ length: Math.min(100, count - i) }, (_, k) => {
        const at = new Date(Date.UTC(2025, 0, 1) + (i + k) * 1000).toISOString();
        return db
          .prepare(
            `INSERT INTO contacts (id, workspace_id, phone, first_name, whatsapp_consent_state, block_state, custom_fields, created_at, updated_at) VALUES (?, ?, ?, 'Bulk', 'subscribed', 'none', '{}', ?, ?)`,
          )
          .bind(crypto.randomUUID(), ws.id, `+1415777${String(i + k).padStart(4, '0')}`, at, at);
      }),
    );
  }
  const c = (await ws.api('POST', '/v1/campaigns', { name: 'Big', template_id: t.id, variables: { '1': 'you' } })).body;
  expect(await startCampaign(rec.env, (await workspaceDb(rec.env, ws.id))!, ws.id, c.id)).not.toBeNull();
  return { ws, c };
}

/** How many WhatsApp messages the sandbox accepted for the workspace, and to how many numbers. */
export async function whatsappCount(ws: { id: string }) {
  const [row] = await rowsIn<{ messages: number; numbers: number }>(
    ws.id,
    `SELECT count(*) AS messages, count(DISTINCT "to") AS numbers FROM sandbox_outbox WHERE workspace_id = ? AND channel = 'whatsapp'`,
    ws.id,
  );
  return row;
}

export const outboxOf = async (ws: { id: string }, to?: string) =>
  (await adminOk('GET', `/workspaces/${ws.id}/outbox?channel=whatsapp&limit=500${to ? `&to=${encodeURIComponent(to)}` : ''}`)).data as any[];

export const messagesOf = (ws: { id: string }) => rowsIn(ws.id, 'SELECT * FROM messages WHERE workspace_id = ? ORDER BY created_at, id', ws.id);

export const sign = (body: string, secret = APP_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** POSTs a notification to the provider webhook, signed unless `signature` says otherwise. */
export function deliver(payload: unknown, signature?: string | null) {
  const rawBody = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const sig = signature === undefined ? sign(rawBody) : signature;
  if (sig !== null) headers['x-hub-signature-256'] = sig;
  return call('POST', '/providers/whatsapp/webhook', { rawBody, headers });
}

/** A Cloud API `messages` notification for one workspace number. */
export function notification(phoneNumberId: string, value: Record<string, unknown>, field = 'messages') {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA_ID',
        changes: [
          {
            field,
            value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId }, ...value },
          },
        ],
      },
    ],
  };
}

export function textMessage(from: string, id: string, text = 'Hello there', name = 'Wanda Sender') {
  return { contacts: [{ profile: { name }, wa_id: from }], messages: [{ from, id, timestamp: '1767225600', type: 'text', text: { body: text } }] };
}
