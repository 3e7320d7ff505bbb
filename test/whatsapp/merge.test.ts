import { describe, expect, it } from 'vitest';
import { adminOk } from '../support/harness';
import { rowsIn } from '../support/db';
import { messagesOf, template, waWorkspace } from './helpers';

/** Two contacts (phone P1; phone P2 + email) merged by a write naming P1 and the email. */
async function mergePair(ws: any, p1: string, p2: string, email: string) {
  const target = (await ws.api('POST', '/v1/contacts', { phone: p1 })).body;
  const other = (await ws.api('POST', '/v1/contacts', { phone: p2, email })).body;
  return {
    target,
    other,
    merge: async () => {
      const conflict = await ws.api('POST', '/v1/contacts', { phone: p1, email });
      expect(conflict.status).toBe(409);
      await adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    },
  };
}

describe('merging contacts re-keys their inbox and campaign rows', () => {
  it('the absorbed contact messages join the target conversation; its own conversation goes', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, { body: 'Hello', category: 'utility' });
    const { target, merge } = await mergePair(ws, '+14155550601', '+14155550602', 'merge1@example.com');
    const a = (await ws.api('POST', `/v1/templates/${t.id}/send`, { to: '+14155550601' })).body;
    await ws.api('POST', `/v1/templates/${t.id}/send`, { to: '+14155550602' });
    await merge();
    const msgs = await messagesOf(ws);
    expect(msgs.map((m: any) => [m.contact_id, m.conversation_id])).toEqual([
      [target.id, a.conversation_id],
      [target.id, a.conversation_id],
    ]);
    const convs = await rowsIn(ws.id, 'SELECT id, contact_id FROM conversations WHERE workspace_id = ?', ws.id);
    expect(convs).toEqual([{ id: a.conversation_id, contact_id: target.id }]);
  });

  it('when only the absorbed contact had a conversation, it moves to the target', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, { body: 'Hello', category: 'utility' });
    const { target, merge } = await mergePair(ws, '+14155550611', '+14155550612', 'merge2@example.com');
    const b = (await ws.api('POST', `/v1/templates/${t.id}/send`, { to: '+14155550612' })).body;
    const c = (await ws.api('POST', '/v1/campaigns', { name: 'M', template_id: t.id })).body;
    await rowsIn(
      ws.id,
      "INSERT INTO whatsapp_campaign_recipients (campaign_id, contact_id, workspace_id, status, created_at, updated_at) VALUES (?, ?, ?, 'sent', 'x', 'x') RETURNING 1",
      c.id,
      (await messagesOf(ws))[0].contact_id,
      ws.id,
    );
    await merge();
    expect(await rowsIn(ws.id, 'SELECT id, contact_id FROM conversations WHERE workspace_id = ?', ws.id)).toEqual([
      { id: b.conversation_id, contact_id: target.id },
    ]);
    expect((await messagesOf(ws)).map((m: any) => m.contact_id)).toEqual([target.id]);
    expect(
      (await rowsIn(ws.id, 'SELECT contact_id FROM whatsapp_campaign_recipients WHERE campaign_id = ?', c.id)).map((r: any) => r.contact_id),
    ).toEqual([target.id]);
  });
});
