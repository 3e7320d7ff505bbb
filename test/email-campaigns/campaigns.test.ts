import { describe, expect, it } from 'vitest';
import { addSender, emailWorkspace } from '../email/support';
import { adminOk, makeWorkspace } from '../support/harness';
import { MARKDOWN, readyCampaign } from './support';

describe('POST /v1/email-campaigns', () => {
  it('creates a draft with compile; the single read carries content and counters, list rows do not carry content', async () => {
    const { ws } = await emailWorkspace();
    const res = await ws.api('POST', '/v1/email-campaigns', {
      name: 'Spring',
      subject: 'Hi [[first_name]]',
      preheader: 'Sale',
      content: { markdown: MARKDOWN },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Spring',
      status: 'draft',
      duplicate: false,
      compile: { ok: true, errors: [] },
      scheduled_at: null,
      sent_at: null,
      cancelled_at: null,
    });
    expect(res.body.counters).toEqual({
      targeted: 0,
      sent: 0,
      delivered: 0,
      opened: 0,
      clicked: 0,
      bounced: 0,
      complained: 0,
      unsubscribed: 0,
      failed: 0,
    });
    expect(res.body.design_json.blocks[0]).toMatchObject({ type: 'heading' });
    expect(res.body.compiled_html).toContain('[[first_name : there]]');
    const read = await ws.api('GET', `/v1/email-campaigns/${res.body.id}`);
    expect(read.body.compile).toBeUndefined();
    expect(read.body.plain_text).toContain('News for');
    const list = await ws.api('GET', '/v1/email-campaigns');
    expect(list.body).toMatchObject({ total: 1, limit: 25, offset: 0 });
    for (const col of ['design_json', 'compiled_html', 'compiled_styles', 'plain_text']) expect(list.body.data[0]).not.toHaveProperty(col);
  });

  it('replaying design_json reproduces the same HTML', async () => {
    const { ws } = await emailWorkspace();
    const a = await readyCampaign(ws);
    const b = await readyCampaign(ws, { content: { design_json: a.design_json } });
    expect(b.compiled_html).toBe(a.compiled_html);
  });

  it('rejects bad content, unknown snippets, foreign audiences, unverified senders and bad filter trees', async () => {
    const { ws } = await emailWorkspace();
    const other = await makeWorkspace({}, { pipeline: false });
    const foreignAudience = await adminOk('POST', `/workspaces/${other.id}/audiences`, { name: 'A', kind: 'static', contact_ids: [] });
    const unverified = await addSender(ws, { from_email: 'news@unverified.example', domain_verified: false });
    const base = { name: 'X', subject: 'S' };
    const twoSources = await ws.api('POST', '/v1/email-campaigns', { ...base, content: { markdown: 'a', blocks: [] } });
    expect(twoSources.status).toBe(400);
    expect(twoSources.body.error.code).toBe('invalid_content');
    const snippet = await ws.api('POST', '/v1/email-campaigns', { ...base, content: { markdown: '::snippet[nope]' } });
    expect(snippet.body.error.code).toBe('unknown_snippet');
    const audience = await ws.api('POST', '/v1/email-campaigns', { ...base, audience_id: foreignAudience.id });
    expect(audience.status).toBe(400);
    expect(audience.body.error.code).toBe('audience_not_found');
    const sender = await ws.api('POST', '/v1/email-campaigns', { ...base, sender_profile_id: unverified.id });
    expect(sender.status).toBe(400);
    expect(sender.body.error.code).toBe('sender_profile_not_found');
    const unknownSender = await ws.api('POST', '/v1/email-campaigns', { ...base, sender_profile_id: crypto.randomUUID() });
    expect(unknownSender.body.error.code).toBe('sender_profile_not_found');
    const filters = await ws.api('POST', '/v1/email-campaigns', { ...base, audience_filters: { $where: { field: 'nope', op: 'eq', value: 1 } } });
    expect(filters.status).toBe(400);
    expect(filters.body.errors).toEqual([filters.body.message]);
    expect(filters.body.message).toMatch(/^Invalid filter/);
    const missing = await ws.api('POST', '/v1/email-campaigns', { name: 'No subject' });
    expect(missing.status).toBe(400);
    expect((await ws.api('GET', '/v1/email-campaigns')).body.total).toBe(0);
  });

  it('external_reference: a replay updates an editable campaign like PATCH, never status or scheduled_at; after launch it is verbatim without compile', async () => {
    const { ws } = await emailWorkspace();
    const first = await readyCampaign(ws, { external_reference: 'ref-1' });
    const at = new Date(Date.now() + 3_600_000).toISOString();
    await ws.api('POST', `/v1/email-campaigns/${first.id}/schedule`, { scheduled_at: at });
    const replay = await ws.api('POST', '/v1/email-campaigns', { name: 'Renamed', subject: 'New subject', external_reference: 'ref-1' });
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({
      id: first.id,
      duplicate: true,
      name: 'Renamed',
      subject: 'New subject',
      status: 'scheduled',
      scheduled_at: at,
      compile: { ok: true },
    });
    expect(replay.body.compiled_html).toBe(first.compiled_html);
    await ws.api('POST', `/v1/email-campaigns/${first.id}/send`);
    const late = await ws.api('POST', '/v1/email-campaigns', { name: 'Too late', subject: 'Ignored', external_reference: 'ref-1' });
    expect(late.status).toBe(201);
    expect(late.body.duplicate).toBe(true);
    expect(late.body.compile).toBeUndefined();
    expect(late.body.name).toBe('Renamed');
  });

  it('audience_filters: null is no filter on a create, and clears the stored tree on a PATCH and on a replay', async () => {
    const { ws } = await emailWorkspace();
    const tree = { $where: { field: 'country', op: 'eq', value: 'DE' } };
    expect((await readyCampaign(ws, { audience_filters: null })).audience_filters).toBeNull();
    const c = await readyCampaign(ws, { audience_filters: tree, external_reference: 'filters-1' });
    expect(c.audience_filters).toEqual(tree);
    const patched = await ws.api('PATCH', `/v1/email-campaigns/${c.id}`, { audience_filters: null });
    expect([patched.status, patched.body.audience_filters]).toEqual([200, null]);
    await ws.api('PATCH', `/v1/email-campaigns/${c.id}`, { audience_filters: tree });
    const replay = await ws.api('POST', '/v1/email-campaigns', {
      name: 'Spring',
      subject: 'S',
      external_reference: 'filters-1',
      audience_filters: null,
    });
    expect([replay.status, replay.body.id, replay.body.audience_filters]).toEqual([201, c.id, null]);
  });

  it('parallel creates with one external_reference give one campaign', async () => {
    const { ws } = await emailWorkspace();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ws.api('POST', '/v1/email-campaigns', { name: `N${i}`, subject: 'S', external_reference: 'race' })),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => !r.body.duplicate)).toHaveLength(1);
    expect((await ws.api('GET', '/v1/email-campaigns')).body.total).toBe(1);
  });

  it('PATCH: 200 with compile while editable; preheader clears on null; 409 campaign_not_editable after launch', async () => {
    const { ws } = await emailWorkspace();
    const c = await readyCampaign(ws, { preheader: 'P' });
    const patched = await ws.api('PATCH', `/v1/email-campaigns/${c.id}`, {
      preheader: null,
      content: { blocks: [{ type: 'paragraph', text: 'Changed' }] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ preheader: null, compile: { ok: true } });
    expect(patched.body).not.toHaveProperty('duplicate');
    expect(patched.body.compiled_html).toContain('Changed');
    await ws.api('POST', `/v1/email-campaigns/${c.id}/send`);
    const late = await ws.api('PATCH', `/v1/email-campaigns/${c.id}`, { name: 'Late' });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('campaign_not_editable');
  });

  it('list: status filter with the exact message, empty as absent, paging 400s, newest first', async () => {
    const { ws } = await emailWorkspace();
    const a = await readyCampaign(ws);
    const b = await readyCampaign(ws);
    await ws.api('POST', `/v1/email-campaigns/${a.id}/send`);
    expect((await ws.api('GET', '/v1/email-campaigns')).body.data.map((r: { id: string }) => r.id)).toEqual([b.id, a.id]);
    expect((await ws.api('GET', '/v1/email-campaigns?status=draft')).body.data.map((r: { id: string }) => r.id)).toEqual([b.id]);
    expect((await ws.api('GET', '/v1/email-campaigns?status=')).body.total).toBe(2);
    const bad = await ws.api('GET', '/v1/email-campaigns?status=done');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid status: must be one of draft, scheduled, sending, paused, sent, failed, cancelled');
    expect((await ws.api('GET', '/v1/email-campaigns?limit=-1')).status).toBe(400);
    expect((await ws.api('GET', '/v1/email-campaigns?limit=abc')).status).toBe(400);
    expect((await ws.api('GET', '/v1/email-campaigns?offset=-1')).status).toBe(400);
  });
});

describe('launch', () => {
  it('schedule: future only (400 invalid_scheduled_at), 201 scheduled; unschedule: 201 draft, else 409', async () => {
    const { ws } = await emailWorkspace();
    const c = await readyCampaign(ws);
    const past = await ws.api('POST', `/v1/email-campaigns/${c.id}/schedule`, { scheduled_at: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.error.code).toBe('invalid_scheduled_at');
    expect((await ws.api('POST', `/v1/email-campaigns/${c.id}/schedule`, { scheduled_at: 'soon' })).status).toBe(400);
    const notScheduled = await ws.api('POST', `/v1/email-campaigns/${c.id}/unschedule`);
    expect(notScheduled.status).toBe(409);
    expect(notScheduled.body.error.code).toBe('campaign_not_editable');
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await ws.api('POST', `/v1/email-campaigns/${c.id}/schedule`, { scheduled_at: at });
    expect(scheduled.status).toBe(201);
    expect(scheduled.body).toMatchObject({ status: 'scheduled', scheduled_at: at });
    const draft = await ws.api('POST', `/v1/email-campaigns/${c.id}/unschedule`);
    expect(draft.status).toBe(201);
    expect(draft.body).toMatchObject({ status: 'draft', scheduled_at: null });
  });

  it('campaign_incomplete without compiled content or a verified sender', async () => {
    const { ws } = await emailWorkspace({}, { sender: false });
    const noContent = (await ws.api('POST', '/v1/email-campaigns', { name: 'N', subject: 'S' })).body;
    const res = await ws.api('POST', `/v1/email-campaigns/${noContent.id}/send`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('campaign_incomplete');
    expect(res.body.error.message).toBe('The campaign cannot be launched without compiled content, a sender profile on a verified domain');
    const withContent = await readyCampaign(ws);
    const noSender = await ws.api('POST', `/v1/email-campaigns/${withContent.id}/schedule`, {
      scheduled_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(noSender.status).toBe(409);
    expect(noSender.body.error.message).toBe('The campaign cannot be launched without a sender profile on a verified domain');
  });

  it('parallel sends launch once: one 201, the rest 409 campaign_not_editable', async () => {
    const { ws } = await emailWorkspace();
    const c = await readyCampaign(ws);
    const results = await Promise.all(Array.from({ length: 6 }, () => ws.api('POST', `/v1/email-campaigns/${c.id}/send`)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error.code === 'campaign_not_editable')).toBe(true);
  });

  it('answers 404 campaign_not_found for unknown and foreign ids', async () => {
    const { ws } = await emailWorkspace();
    const { ws: other } = await emailWorkspace();
    const theirs = await readyCampaign(other);
    for (const path of [`/v1/email-campaigns/${theirs.id}`, `/v1/email-campaigns/${crypto.randomUUID()}/estimate`]) {
      const res = await ws.api('GET', path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('campaign_not_found');
    }
    expect((await ws.api('POST', `/v1/email-campaigns/${theirs.id}/send`)).status).toBe(404);
  });
});
