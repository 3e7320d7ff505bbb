import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { claimInstanceName } from '../../src/durable-objects/idempotency-claims';
import { rowsIn } from '../support/db';
import { adminOk, makeWorkspace, type TestWorkspace } from '../support/harness';

export type Sender = { id: string; from_email: string; from_name: string; verified: boolean; is_default: boolean };

/** A workspace with high request limits and (unless `sender: false`) a verified default sender profile. */
export async function emailWorkspace(
  settings: Record<string, unknown> = {},
  opts: { sender?: boolean } = {},
): Promise<{ ws: TestWorkspace; sender: Sender | null }> {
  const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000, emails_per_minute: 1_000_000 }, ...settings }, { pipeline: false });
  const sender = opts.sender === false ? null : await addSender(ws, { is_default: true });
  return { ws, sender };
}

export const addSender = (ws: TestWorkspace, fields: Record<string, unknown> = {}): Promise<Sender> =>
  adminOk('POST', `/workspaces/${ws.id}/sender-profiles`, {
    from_name: 'Acme',
    from_email: ADDRESS,
    domain_verified: true,
    is_default: false,
    ...fields,
  });

/** A valid send body with a fresh key; `extra` overrides. */
export const sendBody = (extra: Record<string, unknown> = {}) => ({
  to: 'ada@example.com',
  subject: 'Hello',
  text: 'Hello there',
  idempotency_key: `key-${crypto.randomUUID()}`,
  ...extra,
});

export const send = (ws: TestWorkspace, extra: Record<string, unknown> = {}) => ws.api('POST', '/v1/emails', sendBody(extra));

export type OutboxMessage = {
  id: string;
  channel: string;
  to: string;
  from: string;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
  created_at: string;
};

/** What the sandbox provider accepted for the workspace, newest first. */
export const outbox = async (ws: TestWorkspace, to?: string): Promise<OutboxMessage[]> =>
  (await adminOk('GET', `/workspaces/${ws.id}/outbox?channel=email${to ? `&to=${encodeURIComponent(to)}` : ''}`)).data;

/** The workspace's `email.*` outbox events, oldest first. */
export async function emailEvents(ws: TestWorkspace): Promise<{ type: string; data: any }[]> {
  const rows = await rowsIn<{ type: string; data: string }>(
    ws.id,
    `SELECT type, data FROM event_outbox WHERE workspace_id = ? AND type LIKE 'email.%' ORDER BY created_at, id`,
    ws.id,
  );
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.data) }));
}

export const reportEvent = (sendId: string, body: Record<string, unknown>) => adminOk('POST', `/email-sends/${sendId}/events`, body);

/** Claims a key the way a request does, then "crashes": the claim stays with a lease of `leaseMs`. */
export const claims = (workspaceId: string, key: string) => env.EMAIL_CLAIMS.get(env.EMAIL_CLAIMS.idFromName(claimInstanceName(workspaceId, key)));

/** A claim on the key by a request that then crashed; its lease is long, so only `expireClaim` ends it. */
export async function crashedClaim(workspaceId: string, key: string) {
  return claims(workspaceId, key).claim(key, 60_000);
}

/** The crashed holder's lease runs out: moved into the past rather than waited for, so no test depends on timing. */
export async function expireClaim(workspaceId: string, key: string) {
  await runInDurableObject(claims(workspaceId, key), (_: unknown, state: DurableObjectState) => {
    state.storage.sql.exec('UPDATE claims SET lease_until = 0 WHERE key = ?', key);
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sender names the write refuses, each made safe at send when already stored. */
export const BAD_NAMES = [
  '<evil@attacker.example>, Real',
  'Real\r\nBcc: victim@example.com',
  'Line\nFeed',
  'Tab\tName',
  'Nul\u0000Name',
  'Vt\u000bEsc\u001bName',
  'Del\u007fName',
  'Next\u0085Line',
  'Quote "x"',
  'at@sign',
  'comma, name',
];
/** Subjects the write refuses, each folded at send. */
export const BAD_SUBJECTS = ['Hi\r\nBcc: victim@example.com', 'Nul\u0000', 'Vt\u000b', 'Esc\u001b[31m', 'Del\u007f', 'C1\u0085', 'Tab\there'];
/** The address of the default sender `emailWorkspace` adds. */
export const ADDRESS = 'hello@mail.acme.example';

/** A From header naming exactly one address: outside quoted strings, one `<address>` at the end and no other `<`, `>`, `@` or `,`. */
export function expectOneMailbox(from: string) {
  expect(from).not.toMatch(/\p{Cc}/u);
  const unquoted = from.replace(/"(?:[^"\\]|\\.)*"/g, '');
  expect(unquoted, from).toMatch(/^[^<>@,"]* ?<[^<>@\s,"]+@[^<>@\s,"]+>$|^[^<>@\s,"]+@[^<>@\s,"]+$/);
}
