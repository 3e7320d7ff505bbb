import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { sendEmailBatch, type BulkEmail, type BulkOutcome } from '../../src/modules/emails/bulk-send';
import { workspaceContext } from '../../src/modules/workspaces/context';
import { SANDBOX_REJECT_DOMAIN } from '../../src/providers/email/sandbox';
import { rowsIn } from '../support/db';
import { adminOk, type TestWorkspace } from '../support/harness';
import { emailWorkspace, outbox } from './support';

const message = { subject: 'News', html: '<p>Read <a href="https://acme.example/post">this</a></p>', text: 'Read this' };
const emails = (tos: string[]): BulkEmail[] => tos.map((to, i) => ({ ref: `r${i}:${to}`, to, message }));

async function bulk(ws: TestWorkspace, list: BulkEmail[], settled: BulkOutcome[][] = []) {
  const ctx = await workspaceContext(env, ws.id);
  return sendEmailBatch(
    { ...ctx, env, baseUrl: 'http://localhost' },
    { tracking: { opens: true, clicks: true }, metadata: { campaign_id: 'c1' }, source: 'campaign' },
    list,
    (outcomes) => {
      settled.push(outcomes);
      return [];
    },
  );
}

const sends = (ws: TestWorkspace) =>
  rowsIn<{ id: string; to: string; status: string; provider_message_id: string | null; source: string; metadata: string; track_clicks: number }>(
    ws.id,
    'SELECT id, "to", status, provider_message_id, source, metadata, track_clicks FROM email_sends WHERE workspace_id = ? ORDER BY "to"',
    ws.id,
  );

const usage = async (ws: TestWorkspace, table: 'email_quota_usage' | 'email_warming_usage') =>
  (await rowsIn<{ sends: number }>(ws.id, `SELECT sends FROM ${table} WHERE workspace_id = ?`, ws.id))[0]?.sends ?? 0;

const count = (outcomes: BulkOutcome[], status: string, error?: string) =>
  outcomes.filter((o) => o.status === status && (error === undefined || o.error === error)).length;

describe('the bulk send path', () => {
  it('one outcome per message in order: sent, suppressed (a row, no email), invalid recipient, provider refusal (no row)', async () => {
    const { ws } = await emailWorkspace();
    await ws.api('POST', '/v1/suppressions', { email: 'sue@example.com' });
    const list = emails(['ada@example.com', 'SUE@example.com', 'not-an-address', `x@${SANDBOX_REJECT_DOMAIN}`]);
    const settled: BulkOutcome[][] = [];
    const out = await bulk(ws, list, settled);
    expect(out.map((o) => [o.ref, o.status, o.error])).toEqual([
      [list[0].ref, 'sent', undefined],
      [list[1].ref, 'suppressed', undefined],
      [list[2].ref, 'failed', 'invalid_recipient'],
      [list[3].ref, 'failed', 'provider_error'],
    ]);
    expect(settled).toEqual([out]);
    const rows = await sends(ws);
    expect(rows.map((r) => [r.to, r.status])).toEqual([
      ['ada@example.com', 'sent'],
      ['sue@example.com', 'suppressed'],
    ]);
    const [mail] = await outbox(ws);
    expect(rows[0]).toMatchObject({ id: out[0].sendId, provider_message_id: mail.id, source: 'campaign', track_clicks: 1 });
    expect(JSON.parse(rows[0].metadata)).toEqual({ campaign_id: 'c1' });
    expect(mail.to).toBe('ada@example.com');
    expect(mail.html).toContain('/t/c/');
    expect(await outbox(ws)).toHaveLength(1);
  });

  it('the monthly quota admits exactly what is left across parallel batches, and refused hand-offs give their counts back', async () => {
    const { ws } = await emailWorkspace({ email: { monthly_quota: 5 } });
    const batches = [0, 1, 2].map((b) =>
      emails([0, 1, 2, 3].map((i) => (b === 0 && i < 2 ? `no${i}@${SANDBOX_REJECT_DOMAIN}` : `b${b}.${i}@example.com`))),
    );
    const outs = (await Promise.all(batches.map((list) => bulk(ws, list)))).flat();
    const sent = count(outs, 'sent');
    const refused = count(outs, 'failed', 'provider_error');
    // The refused pair may have taken room before giving it back; everything else beyond the quota is refused by it.
    expect(sent).toBeLessThanOrEqual(5);
    expect(sent + refused + count(outs, 'failed', 'quota_exceeded')).toBe(12);
    expect(await usage(ws, 'email_quota_usage')).toBe(sent);
    expect(await outbox(ws)).toHaveLength(sent);
    const more = await bulk(ws, emails(['late@example.com', 'later@example.com']));
    expect(count(more, 'sent')).toBe(5 - sent);
    expect(await usage(ws, 'email_quota_usage')).toBe(5);
  });

  it('the daily warming cap refuses the rest with warming_cap_exceeded; a paused workspace or a missing sender refuses all', async () => {
    const capped = (await emailWorkspace({ email: { daily_warming_cap: 3 } })).ws;
    const outs = (
      await Promise.all([bulk(capped, emails(['a@x.example', 'b@x.example'])), bulk(capped, emails(['c@x.example', 'd@x.example']))])
    ).flat();
    expect(count(outs, 'sent')).toBe(3);
    expect(count(outs, 'failed', 'warming_cap_exceeded')).toBe(1);
    expect(await usage(capped, 'email_warming_usage')).toBe(3);

    const paused = (await emailWorkspace({ email: { paused: true } })).ws;
    expect((await bulk(paused, emails(['a@x.example', 'b@x.example']))).map((o) => o.error)).toEqual(['workspace_paused', 'workspace_paused']);
    const noSender = (await emailWorkspace({}, { sender: false })).ws;
    expect((await bulk(noSender, emails(['a@x.example']))).map((o) => o.error)).toEqual(['no_verified_sender']);
    await adminOk('PATCH', `/workspaces/${paused.id}`, { email: { paused: false } });
    expect(await sends(paused)).toEqual([]);
  });
});
