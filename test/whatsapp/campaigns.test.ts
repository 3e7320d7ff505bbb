import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { admin, adminOk, eventually, uuidRe } from '../support/harness';
import { rowsIn } from '../support/db';
import { messagesOf, outboxOf, template, waWorkspace } from './helpers';
import { PROTOTYPE_NAMES } from '../quality/fuzz-inputs';

const future = (ms = 3_600_000) => new Date(Date.now() + ms).toISOString();

async function setup() {
  const ws = await waWorkspace();
  const t = await template(ws, { body: 'Hi {{1}}, your code is {{2}}' });
  return { ws, t, variables: { '1': '{{contact.first_name|there}}', '2': 'SPRING20' } };
}

/** Polls the database (API reads would spend the key's rate budget), then reads the campaign through the API. */
async function waitFor(ws: any, id: string, statuses = ['completed', 'failed']) {
  await eventually(
    async () => (await rowsIn(ws.id, 'SELECT status FROM whatsapp_campaigns WHERE id = ?', id))[0]?.status,
    (status: string) => statuses.includes(status),
  );
  return (await ws.api('GET', `/v1/campaigns/${id}`)).body;
}

describe('WhatsApp campaigns: create, read, PATCH', () => {
  it('create answers 201 with the DECISIONS record; scheduled_at makes it scheduled', async () => {
    const { ws, t, variables } = await setup();
    const res = await ws.api('POST', '/v1/campaigns', { name: 'Spring', template_id: t.id, variables, audience_filters: { city: 'Oslo' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'audience_filters',
        'audience_id',
        'completed_at',
        'created_at',
        'id',
        'name',
        'scheduled_at',
        'started_at',
        'stats',
        'status',
        'template_id',
        'updated_at',
        'variables',
        'workspace_id',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      id: expect.stringMatching(uuidRe),
      workspace_id: ws.id,
      status: 'draft',
      template_id: t.id,
      audience_id: null,
      audience_filters: { city: 'Oslo' },
      variables,
      stats: { targeted: 0, sent: 0, failed: 0 },
      scheduled_at: null,
      started_at: null,
      completed_at: null,
    });
    expect((await ws.api('GET', `/v1/campaigns/${res.body.id}`)).body).toEqual(res.body);
    const at = future();
    const scheduled = await ws.api('POST', '/v1/campaigns', { name: 'Later', template_id: t.id, variables, scheduled_at: at });
    expect(scheduled.body).toMatchObject({ status: 'scheduled', scheduled_at: at });
    const list = await ws.api('GET', `/v1/campaigns?filter=${encodeURIComponent(JSON.stringify({ status: 'scheduled' }))}`);
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(list.body.data[0].id).toBe(scheduled.body.id);
    expect((await ws.api('GET', `/v1/campaigns?filter=${encodeURIComponent(JSON.stringify({ status: 'sending' }))}`)).status).toBe(400);
    expect((await ws.api('GET', '/v1/campaigns?search=LATER')).body.total).toBe(1);
  });

  it('create validation: template of the workspace, type-checked audience_filters, variables, future scheduled_at, audience_id', async () => {
    const { ws, t, variables } = await setup();
    const other = await waWorkspace();
    const foreign = await template(other);
    const post = (body: Record<string, unknown>) => ws.api('POST', '/v1/campaigns', { name: 'C', template_id: t.id, variables, ...body });
    const cases: [Record<string, unknown>, unknown][] = [
      [{ template_id: foreign.id }, ['template_id: no such template in this workspace']],
      [{ audience_filters: { created_at: { $gt: 'soon' } } }, 'Invalid filter value for "created_at": "soon" is not a date'],
      [{ audience_filters: { whatsapp_subscribed: 'maybe' } }, 'Invalid filter value for "whatsapp_subscribed": "maybe" is not a boolean'],
      [{ audience_filters: { $where: { field: 'lead_score', op: 'contains', value: 'x' } } }, expect.stringMatching(/text fields only/)],
      [{ variables: { '1': 'x' } }, ['variables: missing a value for placeholder {{2}}']],
      [{ variables: { ...variables, '3': 'x' } }, ['variables.3: the template has no placeholder {{3}}']],
      [{ variables: { ...variables, '1': '{{contact.password}}' } }, [expect.stringMatching(/^variables\.1: unknown contact field "password"/)]],
      [{ scheduled_at: '2020-01-01T00:00:00Z' }, ['scheduled_at must be in the future']],
      [{ scheduled_at: 'tomorrow' }, ['scheduled_at: scheduled_at must be a valid ISO 8601 date']],
      [{ unknown: 1 }, ['property unknown should not exist']],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toEqual(message);
    }
    const audience = await post({ audience_id: crypto.randomUUID() });
    expect(audience.status).toBe(400);
    expect(audience.body.error_code).toBe('AUDIENCE_NOT_FOUND');
  });

  it('a variables key named like an inherited object property is a key like any other: refused unless it is a placeholder', async () => {
    const { ws, t } = await setup();
    const draft = (await ws.api('POST', '/v1/campaigns', { name: 'P', template_id: t.id, variables: { '1': 'a', '2': 'b' } })).body;
    for (const name of PROTOTYPE_NAMES) {
      const variables = `{"1":"a","2":"b",${JSON.stringify(name)}:"c"}`;
      const problem = /^[a-z0-9_]+$/.test(name)
        ? `the template has no placeholder {{${name}}}`
        : 'variable names are placeholder names: lower-case letters, digits and underscores';
      for (const [method, path, raw] of [
        ['POST', '/v1/campaigns', `{"name":"C","template_id":"${t.id}","variables":${variables}}`],
        ['PATCH', `/v1/campaigns/${draft.id}`, `{"variables":${variables}}`],
      ]) {
        const res = await ws.api(method, path, undefined, { rawBody: raw, headers: { 'content-type': 'application/json' } });
        expect(res.status, `${method} ${name}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.message, name).toEqual([`variables.${name}: ${problem}`]);
      }
    }
    expect((await ws.api('GET', `/v1/campaigns/${draft.id}`)).body.variables).toEqual({ '1': 'a', '2': 'b' });
  });

  it('PATCH while draft or scheduled (200); scheduled_at null returns it to draft; later 409 campaign_not_editable', async () => {
    const { ws, t, variables } = await setup();
    const c = (await ws.api('POST', '/v1/campaigns', { name: 'A', template_id: t.id, variables })).body;
    const at = future();
    const p1 = await ws.api('PATCH', `/v1/campaigns/${c.id}`, { name: 'B', scheduled_at: at });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ name: 'B', status: 'scheduled', scheduled_at: at });
    const p2 = await ws.api('PATCH', `/v1/campaigns/${c.id}`, { scheduled_at: null });
    expect(p2.body).toMatchObject({ status: 'draft', scheduled_at: null });
    expect((await ws.api('PATCH', `/v1/campaigns/${c.id}`, { variables: { '1': 'x' } })).status).toBe(400);
    expect((await ws.api('POST', `/v1/campaigns/${c.id}/execute`)).status).toBe(201);
    const locked = await ws.api('PATCH', `/v1/campaigns/${c.id}`, { name: 'C' });
    expect(locked.status).toBe(409);
    expect(locked.body.error_code).toBe('campaign_not_editable');
    expect((await ws.api('PATCH', `/v1/campaigns/${crypto.randomUUID()}`, { name: 'C' })).status).toBe(404);
  });
});

describe('WhatsApp campaigns: execute and fan-out', () => {
  it('sends once to every subscribed, unblocked, unblacklisted contact in the audience; stats exact; personalized; completed', async () => {
    const { ws, t, variables } = await setup();
    const mk = (body: Record<string, unknown>) => ws.api('POST', '/v1/contacts', body).then((r) => r.body);
    const ada = await mk({ phone: '+14155550201', first_name: 'Ada', city: 'Oslo' });
    const anon = await mk({ phone: '+14155550202', city: 'Oslo' });
    const unsub = await mk({ phone: '+14155550203', first_name: 'Un', city: 'Oslo' });
    await ws.api('PUT', `/v1/contacts/${unsub.id}/consent/whatsapp`, { state: 'unsubscribed' });
    await mk({ phone: '+14155550204', first_name: 'Blocked', city: 'Oslo', block_state: 'workspace' });
    await mk({ email: 'nophone@example.com', first_name: 'Mail', city: 'Oslo' });
    await mk({ phone: '+14155550205', first_name: 'Bergen', city: 'Bergen' });
    await mk({ phone: '+14155550206', first_name: 'Listed', city: 'Oslo' });
    await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone: '+14155550206' });

    const c = (await ws.api('POST', '/v1/campaigns', { name: 'Oslo', template_id: t.id, variables, audience_filters: { city: 'Oslo' } })).body;
    const exec = await ws.api('POST', `/v1/campaigns/${c.id}/execute`);
    expect(exec.status).toBe(201);
    expect(exec.body).toMatchObject({ id: c.id, status: 'running', started_at: expect.any(String) });
    const done = await waitFor(ws, c.id);
    expect(done).toMatchObject({ status: 'completed', stats: { targeted: 2, sent: 2, failed: 0 }, completed_at: expect.any(String) });
    const out = await outboxOf(ws);
    expect(out.map((o: any) => [o.to, o.text]).sort()).toEqual([
      ['+14155550201', 'Hi Ada, your code is SPRING20'],
      ['+14155550202', 'Hi there, your code is SPRING20'],
    ]);
    const msgs = await messagesOf(ws);
    expect(msgs.every((m: any) => m.campaign_id === c.id && m.status === 'sent' && m.wamid)).toBe(true);
    expect(new Set(msgs.map((m: any) => m.contact_id))).toEqual(new Set([ada.id, anon.id]));

    // A redelivered page message (or a second fan-out) sends nothing twice.
    await env.SEND_QUEUE.send({ kind: 'whatsapp-campaign-page', workspace_id: ws.id, campaign_id: c.id, after: null });
    await new Promise((r) => setTimeout(r, 500));
    expect((await outboxOf(ws)).length).toBe(2);
    expect((await ws.api('GET', `/v1/campaigns/${c.id}`)).body.stats).toEqual({ targeted: 2, sent: 2, failed: 0 });

    const again = await ws.api('POST', `/v1/campaigns/${c.id}/execute`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: { code: 'campaign_not_executable', message: expect.any(String) } });
  });

  it('audience_id narrows the recipients: a static audience by its ids, a dynamic one by its tree combined with audience_filters', async () => {
    const { ws, t, variables } = await setup();
    const mk = (body: Record<string, unknown>) => ws.api('POST', '/v1/contacts', body).then((r) => r.body);
    const oslo = await mk({ phone: '+14155550301', first_name: 'Oslo', city: 'Oslo', lifecycle_stage: 'customer' });
    const bergen = await mk({ phone: '+14155550302', first_name: 'Bergen', city: 'Bergen', lifecycle_stage: 'customer' });
    await mk({ phone: '+14155550303', first_name: 'Lead', city: 'Oslo', lifecycle_stage: 'lead' });
    const unsub = await mk({ phone: '+14155550304', first_name: 'Gone', city: 'Oslo', lifecycle_stage: 'customer' });
    await ws.api('PUT', `/v1/contacts/${unsub.id}/consent/whatsapp`, { state: 'unsubscribed' });

    const listed = await adminOk('POST', `/workspaces/${ws.id}/audiences`, { name: 'Listed', kind: 'static', contact_ids: [bergen.id, unsub.id] });
    const c1 = (await ws.api('POST', '/v1/campaigns', { name: 'Listed', template_id: t.id, variables, audience_id: listed.id })).body;
    await ws.api('POST', `/v1/campaigns/${c1.id}/execute`);
    expect(await waitFor(ws, c1.id)).toMatchObject({ status: 'completed', stats: { targeted: 1, sent: 1, failed: 0 } });
    expect((await outboxOf(ws)).map((o: any) => o.to)).toEqual(['+14155550302']);

    const customers = await adminOk('POST', `/workspaces/${ws.id}/audiences`, {
      name: 'Customers',
      kind: 'dynamic',
      filters: { lifecycle_stage: 'customer' },
    });
    const c2 = (
      await ws.api('POST', '/v1/campaigns', {
        name: 'Oslo customers',
        template_id: t.id,
        variables,
        audience_id: customers.id,
        audience_filters: { city: 'Oslo' },
      })
    ).body;
    await ws.api('POST', `/v1/campaigns/${c2.id}/execute`);
    expect(await waitFor(ws, c2.id)).toMatchObject({ status: 'completed', stats: { targeted: 1, sent: 1, failed: 0 } });
    expect((await outboxOf(ws)).map((o: any) => o.to).sort()).toEqual(['+14155550301', '+14155550302']);

    const foreign = await adminOk('POST', `/workspaces/${(await waWorkspace()).id}/audiences`, {
      name: 'Theirs',
      kind: 'static',
      contact_ids: [oslo.id],
    });
    const rejected = await ws.api('POST', '/v1/campaigns', { name: 'Foreign', template_id: t.id, variables, audience_id: foreign.id });
    expect(rejected.status).toBe(400);
    expect(rejected.body.error_code).toBe('AUDIENCE_NOT_FOUND');
  });

  it('a campaign that could send nothing ends failed; provider rejections count as failed', async () => {
    const { ws, t, variables } = await setup();
    const nobody = (await ws.api('POST', '/v1/campaigns', { name: 'Nobody', template_id: t.id, variables, audience_filters: { city: 'Atlantis' } }))
      .body;
    await ws.api('POST', `/v1/campaigns/${nobody.id}/execute`);
    expect(await waitFor(ws, nobody.id)).toMatchObject({ status: 'failed', stats: { targeted: 0, sent: 0, failed: 0 } });

    await ws.api('POST', '/v1/contacts', { phone: '+15005550001', first_name: 'Rejected', city: 'Reject' });
    await ws.api('POST', '/v1/contacts', { phone: '+14155550301', first_name: 'Fine', city: 'Reject' });
    await ws.api('POST', '/v1/contacts', { phone: '+14155550302', city: 'Reject' });
    const strict = { '1': '{{contact.first_name}}', '2': 'X' };
    const mixed = (
      await ws.api('POST', '/v1/campaigns', { name: 'Mixed', template_id: t.id, variables: strict, audience_filters: { city: 'Reject' } })
    ).body;
    await ws.api('POST', `/v1/campaigns/${mixed.id}/execute`);
    expect(await waitFor(ws, mixed.id)).toMatchObject({ status: 'completed', stats: { targeted: 3, sent: 1, failed: 2 } });
    const reasons = await rowsIn(
      ws.id,
      'SELECT error FROM whatsapp_campaign_recipients WHERE campaign_id = ? AND status = ? ORDER BY error',
      mixed.id,
      'failed',
    );
    expect(reasons.map((r: any) => r.error)).toEqual([
      expect.stringMatching(/sandbox rejects this recipient/),
      'Variable(s) {{1}} came out empty for this contact',
    ]);

    await ws.api('POST', '/v1/contacts', { phone: '+15005550001', city: 'OnlyRejected' });
    const allRejected = (
      await ws.api('POST', '/v1/campaigns', { name: 'R', template_id: t.id, variables, audience_filters: { city: 'OnlyRejected' } })
    ).body;
    await ws.api('POST', `/v1/campaigns/${allRejected.id}/execute`);
    expect(await waitFor(ws, allRejected.id)).toMatchObject({ status: 'failed', stats: { targeted: 1, sent: 0, failed: 1 } });
  });

  it('parallel executes start the campaign exactly once', async () => {
    const { ws, t, variables } = await setup();
    await ws.api('POST', '/v1/contacts', { phone: '+14155550401' });
    const c = (await ws.api('POST', '/v1/campaigns', { name: 'Race', template_id: t.id, variables })).body;
    const answers = await Promise.all(Array.from({ length: 8 }, () => ws.api('POST', `/v1/campaigns/${c.id}/execute`)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.error.code === 'campaign_not_executable')).toBe(true);
    expect(await waitFor(ws, c.id)).toMatchObject({ status: 'completed', stats: { targeted: 1, sent: 1, failed: 0 } });
    expect((await outboxOf(ws)).length).toBe(1);
  });

  it('execute errors use the domain envelope: unknown id 404, unapproved template 409', async () => {
    const { ws, variables } = await setup();
    const missing = await ws.api('POST', `/v1/campaigns/${crypto.randomUUID()}/execute`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('campaign_not_found');
    const paused = await template(ws, { status: 'paused' });
    const c = (await ws.api('POST', '/v1/campaigns', { name: 'P', template_id: paused.id, variables })).body;
    const res = await ws.api('POST', `/v1/campaigns/${c.id}/execute`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('template_not_approved');
    expect((await ws.api('GET', `/v1/campaigns/${c.id}`)).body.status).toBe('draft');
  });

  it('the campaign-schedules sweep executes due scheduled campaigns, once', async () => {
    const { ws, t, variables } = await setup();
    await ws.api('POST', '/v1/contacts', { phone: '+14155550501', first_name: 'Sched' });
    const c = (await ws.api('POST', '/v1/campaigns', { name: 'Soon', template_id: t.id, variables, scheduled_at: future() })).body;
    const early = await adminOk('POST', '/sweeps/campaign-schedules');
    expect(early.result.whatsapp_campaigns_started ?? 0).toBe(0);
    // Its time comes: moved into the past rather than waited for, so the outcome never depends on timing.
    await rowsIn(ws.id, 'UPDATE whatsapp_campaigns SET scheduled_at = ? WHERE id = ? RETURNING id', new Date(Date.now() - 1000).toISOString(), c.id);
    const [first, second] = await Promise.all([admin('POST', '/sweeps/campaign-schedules'), admin('POST', '/sweeps/campaign-schedules')]);
    expect(first.body.result.whatsapp_campaigns_started + second.body.result.whatsapp_campaigns_started).toBe(1);
    expect(await waitFor(ws, c.id)).toMatchObject({ status: 'completed', stats: { targeted: 1, sent: 1, failed: 0 } });
    expect((await outboxOf(ws)).length).toBe(1);
  });

  it('fans out in keyset pages: 450 recipients, each exactly once', async () => {
    const { ws, t } = await setup();
    const db = await (await import('../support/db')).shardOf(ws.id);
    const now = new Date().toISOString();
    const rows = Array.from({ length: 450 }, (_, i) => [crypto.randomUUID(), `+1415556${String(i).padStart(4, '0')}`]);
    for (let i = 0; i < rows.length; i += 50) {
      await db.batch(
        rows
          .slice(i, i + 50)
          .map(([id, phone]) =>
            db
              .prepare(
                `INSERT INTO contacts (id, workspace_id, phone, first_name, whatsapp_consent_state, block_state, custom_fields, created_at, updated_at) VALUES (?, ?, ?, 'Bulk', 'subscribed', 'none', '{"plan":"pro"}', ?, ?)`,
              )
              .bind(id, ws.id, phone, now, now),
          ),
      );
    }
    const c = (
      await ws.api('POST', '/v1/campaigns', {
        name: 'Bulk',
        template_id: t.id,
        variables: { '1': '{{contact.first_name}}', '2': '{{contact.custom_fields.plan}}' },
      })
    ).body;
    await ws.api('POST', `/v1/campaigns/${c.id}/execute`);
    expect(await waitFor(ws, c.id)).toMatchObject({ status: 'completed', stats: { targeted: 450, sent: 450, failed: 0 } });
    const out = await outboxOf(ws);
    expect(out.length).toBe(450);
    expect(new Set(out.map((o: any) => o.to)).size).toBe(450);
    expect(out[0].text).toBe('Hi Bulk, your code is pro');
  });

  it('the sweep re-drives a stalled campaign: a lost first page, lost sends, a dead worker', async () => {
    const { ws, t, variables } = await setup();
    const a = (await ws.api('POST', '/v1/contacts', { phone: '+14155550701', first_name: 'A' })).body;
    const b = (await ws.api('POST', '/v1/contacts', { phone: '+14155550702', first_name: 'B' })).body;
    const old = new Date(Date.now() - 3_600_000).toISOString();
    // Started, but its first page message never arrived.
    const lost = (await ws.api('POST', '/v1/campaigns', { name: 'Lost page', template_id: t.id, variables })).body;
    await rowsIn(
      ws.id,
      "UPDATE whatsapp_campaigns SET status = 'running', started_at = ?, updated_at = ? WHERE id = ? RETURNING id",
      old,
      old,
      lost.id,
    );
    // Targeted; one recipient died mid-send, one send message was lost.
    const stuck = (await ws.api('POST', '/v1/campaigns', { name: 'Stuck', template_id: t.id, variables })).body;
    await rowsIn(
      ws.id,
      "UPDATE whatsapp_campaigns SET status = 'running', started_at = ?, updated_at = ?, targeting_done_at = ? WHERE id = ? RETURNING id",
      old,
      old,
      old,
      stuck.id,
    );
    await rowsIn(
      ws.id,
      "INSERT INTO whatsapp_campaign_recipients (campaign_id, contact_id, workspace_id, status, created_at, updated_at) VALUES (?, ?, ?, 'sending', ?, ?), (?, ?, ?, 'queued', ?, ?) RETURNING 1",
      stuck.id,
      a.id,
      ws.id,
      old,
      old,
      stuck.id,
      b.id,
      ws.id,
      old,
      old,
    );

    const run = await adminOk('POST', '/sweeps/campaign-schedules');
    expect(run.result.whatsapp_campaigns_redriven).toBe(2);
    expect(await waitFor(ws, lost.id)).toMatchObject({ status: 'completed', stats: { targeted: 2, sent: 2, failed: 0 } });
    expect(await waitFor(ws, stuck.id)).toMatchObject({ status: 'completed', stats: { targeted: 2, sent: 1, failed: 1 } });
    const [dead] = await rowsIn(
      ws.id,
      'SELECT status, error FROM whatsapp_campaign_recipients WHERE campaign_id = ? AND contact_id = ?',
      stuck.id,
      a.id,
    );
    expect(dead).toEqual({ status: 'failed', error: 'No provider answer was recorded; not resent' });
    expect((await outboxOf(ws)).length).toBe(3);
    expect((await adminOk('POST', '/sweeps/campaign-schedules')).result.whatsapp_campaigns_redriven).toBe(0);
  });
});
