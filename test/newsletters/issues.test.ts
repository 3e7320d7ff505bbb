import { describe, expect, it } from 'vitest';
import { admin, adminOk, makeWorkspace } from '../support/harness';
import { rowsIn } from '../support/db';
import { counted, warmWorkspace } from '../support/round-trips';
import { future, MARKDOWN, newsletter, readyIssue } from './support';

describe('newsletter issues', () => {
  it('creates an empty draft with compile, reads it back without compile, and lists rows without content columns', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    const empty = await ws.api('POST', `/v1/newsletters/${n.id}/issues`, {});
    expect(empty.status).toBe(201);
    expect(empty.body).toMatchObject({
      status: 'draft',
      issue_number: null,
      subject: null,
      include_in_archive: true,
      duplicate: false,
      compile: { ok: true, errors: [], warnings: [] },
    });
    const full = await readyIssue(ws, n.id);
    const read = await ws.api('GET', `/v1/newsletter-issues/${full.id}`);
    expect(read.status).toBe(200);
    expect(read.body.compile).toBeUndefined();
    expect(read.body.compiled_html).toContain('Hello');
    expect(read.body.plain_text).toContain('This week');
    const list = await ws.api('GET', `/v1/newsletters/${n.id}/issues`);
    expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([full.id, empty.body.id]);
    for (const col of ['design_json', 'compiled_html', 'compiled_styles', 'plain_text']) expect(list.body.data[0]).not.toHaveProperty(col);
  });

  it("lists a newsletter's issues in one round trip, the newsletter read with the page; an unknown or foreign one is 404 there too", async () => {
    const foreign = await newsletter(await makeWorkspace());
    const ws = await warmWorkspace();
    const n = await newsletter(ws);
    const i = await readyIssue(ws, n.id);
    const list = await counted(ws, 'GET', `/v1/newsletters/${n.id}/issues`);
    expect(list).toMatchObject({ status: 200, roundTrips: 1, body: { total: 1, data: [{ id: i.id }] } });
    for (const id of [foreign.id, crypto.randomUUID()]) {
      const missing = await counted(ws, 'GET', `/v1/newsletters/${id}/issues`);
      expect(missing).toMatchObject({ status: 404, roundTrips: 1, body: { error: { code: 'newsletter_not_found' } } });
    }
  });

  it('creates in 2 round trips and replays an external_reference in 2: the newsletter and the reference read together, then the write', async () => {
    const ws = await warmWorkspace();
    const n = await newsletter(ws);
    const created = await counted(ws, 'POST', `/v1/newsletters/${n.id}/issues`, { subject: 'Once', external_reference: 'rt-1' });
    expect(created).toMatchObject({ status: 201, roundTrips: 2, body: { duplicate: false, subject: 'Once' } });
    const replay = await counted(ws, 'POST', `/v1/newsletters/${n.id}/issues`, { subject: 'Twice', external_reference: 'rt-1' });
    expect(replay).toMatchObject({ roundTrips: 2, body: { id: created.body.id, duplicate: true, subject: 'Twice' } });
    const missing = await counted(ws, 'POST', `/v1/newsletters/${crypto.randomUUID()}/issues`, { subject: 'Nowhere', external_reference: 'rt-1' });
    expect(missing).toMatchObject({ status: 404, roundTrips: 1, body: { error: { code: 'newsletter_not_found' } } });
  });

  it('filters by status with the exact 400 message; empty is absent', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    const i = await readyIssue(ws, n.id);
    await ws.api('POST', `/v1/newsletters/${n.id}/issues`, {});
    await ws.api('POST', `/v1/newsletter-issues/${i.id}/publish`);
    expect((await ws.api('GET', `/v1/newsletters/${n.id}/issues?status=published`)).body.total).toBe(1);
    expect((await ws.api('GET', `/v1/newsletters/${n.id}/issues?status=`)).body.total).toBe(2);
    const bad = await ws.api('GET', `/v1/newsletters/${n.id}/issues?status=sent`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid status: must be draft, scheduled or published');
  });

  it("resolves the workspace's snippets in issue content; an unknown one is 400 unknown_snippet", async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    await adminOk('POST', `/workspaces/${ws.id}/snippets`, { name: 'Sign-off', markdown: 'Cheers, **the team**' });
    const ok = await ws.api('POST', `/v1/newsletters/${n.id}/issues`, { subject: 'Weekly', content: { markdown: 'News\n\n::snippet[sign-off]' } });
    expect(ok.status).toBe(201);
    expect(ok.body.compiled_html).toContain('Cheers, <strong>the team</strong>');
    const bad = await ws.api('PATCH', `/v1/newsletter-issues/${ok.body.id}`, { content: { markdown: '::snippet[Missing]' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: 'unknown_snippet', message: 'Unknown snippet "Missing"; available snippets: Sign-off' } });
  });

  it('rejects invalid content with invalid_content and bounds the fields', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    const res = await ws.api('POST', `/v1/newsletters/${n.id}/issues`, { content: { markdown: 'x', blocks: [] } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_content');
    for (const body of [{ subject: 'x'.repeat(401) }, { preheader: 'x'.repeat(401) }, { external_reference: 'x'.repeat(256) }, { content: null }]) {
      expect((await ws.api('POST', `/v1/newsletters/${n.id}/issues`, body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('upserts by external_reference: refreshes content (even published) but never status, scheduled_at or issue_number', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    const first = await ws.api('POST', `/v1/newsletters/${n.id}/issues`, { subject: 'One', content: MARKDOWN, external_reference: 'ref-1' });
    await ws.api('POST', `/v1/newsletter-issues/${first.body.id}/publish`);
    const replay = await ws.api('POST', `/v1/newsletters/${n.id}/issues`, {
      subject: 'One bis',
      content: { markdown: 'Fresh words' },
      external_reference: 'ref-1',
    });
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({
      id: first.body.id,
      duplicate: true,
      status: 'published',
      issue_number: 1,
      subject: 'One bis',
      compile: { ok: true },
    });
    expect(replay.body.compiled_html).toContain('Fresh words');
    const other = await newsletter(ws);
    const clash = await ws.api('POST', `/v1/newsletters/${other.id}/issues`, { external_reference: 'ref-1' });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('external_reference_in_use');
    const parallel = await Promise.all(
      Array.from({ length: 6 }, () => ws.api('POST', `/v1/newsletters/${n.id}/issues`, { external_reference: 'ref-2' })),
    );
    expect(parallel.every((r) => r.status === 201)).toBe(true);
    expect(new Set(parallel.map((r) => r.body.id)).size).toBe(1);
  });

  it('PATCH: subject/preheader clear on null, content and include_in_archive refuse null, content recompiles, compile without duplicate', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    const i = await readyIssue(ws, n.id, 'Subject', { preheader: 'Pre' });
    const cleared = await ws.api('PATCH', `/v1/newsletter-issues/${i.id}`, { subject: null, preheader: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ subject: null, preheader: null, compile: { ok: true, errors: [], warnings: [] } });
    expect(cleared.body).not.toHaveProperty('duplicate');
    for (const body of [{ content: null }, { include_in_archive: null }])
      expect((await ws.api('PATCH', `/v1/newsletter-issues/${i.id}`, body)).status).toBe(400);
    const recompiled = await ws.api('PATCH', `/v1/newsletter-issues/${i.id}`, { content: { markdown: 'Brand new text' }, include_in_archive: false });
    expect(recompiled.body.compiled_html).toContain('Brand new text');
    expect(recompiled.body.include_in_archive).toBe(false);
    expect((await ws.api('PATCH', `/v1/newsletter-issues/${crypto.randomUUID()}`, {})).body.error.code).toBe('issue_not_found');
  });
});

describe('issue state table', () => {
  it('publish: 409 issue_missing_content without subject or content; assigns the number; published -> 200 as is, scheduled_at kept', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    const noSubject = await ws.api('POST', `/v1/newsletters/${n.id}/issues`, { content: MARKDOWN });
    const noContent = await ws.api('POST', `/v1/newsletters/${n.id}/issues`, { subject: 'S' });
    for (const id of [noSubject.body.id, noContent.body.id]) {
      for (const op of ['publish', 'schedule']) {
        const res = await ws.api('POST', `/v1/newsletter-issues/${id}/${op}`, op === 'schedule' ? { scheduled_at: future() } : undefined);
        expect(res.status).toBe(409);
        expect(res.body.error.code).toBe('issue_missing_content');
      }
    }
    const i = await readyIssue(ws, n.id);
    const at = future();
    await ws.api('POST', `/v1/newsletter-issues/${i.id}/schedule`, { scheduled_at: at });
    const pub = await ws.api('POST', `/v1/newsletter-issues/${i.id}/publish`);
    expect(pub.status).toBe(200);
    expect(pub.body).toMatchObject({ status: 'published', issue_number: 1, scheduled_at: at });
    expect(pub.body.published_at).toEqual(expect.any(String));
    const again = await ws.api('POST', `/v1/newsletter-issues/${i.id}/publish`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(pub.body);
  });

  it('schedule: future only (400 invalid_scheduled_at), non-ISO is a request-validation 400, reschedule moves it, published -> 409', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    const i = await readyIssue(ws, n.id);
    const past = await ws.api('POST', `/v1/newsletter-issues/${i.id}/schedule`, { scheduled_at: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.error.code).toBe('invalid_scheduled_at');
    const junk = await ws.api('POST', `/v1/newsletter-issues/${i.id}/schedule`, { scheduled_at: 'tomorrow' });
    expect(junk.status).toBe(400);
    expect(junk.body.statusCode).toBe(400);
    const first = await ws.api('POST', `/v1/newsletter-issues/${i.id}/schedule`, { scheduled_at: future(60) });
    expect(first.body.status).toBe('scheduled');
    const moved = await ws.api('POST', `/v1/newsletter-issues/${i.id}/schedule`, { scheduled_at: future(120) });
    expect(moved.status).toBe(200);
    expect(moved.body.scheduled_at).not.toBe(first.body.scheduled_at);
    await ws.api('POST', `/v1/newsletter-issues/${i.id}/publish`);
    const late = await ws.api('POST', `/v1/newsletter-issues/${i.id}/schedule`, { scheduled_at: future() });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('issue_already_published');
  });

  it('unschedule: scheduled -> draft with scheduled_at cleared; draft -> 409 issue_not_scheduled', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    const i = await readyIssue(ws, n.id);
    const draft = await ws.api('POST', `/v1/newsletter-issues/${i.id}/unschedule`);
    expect(draft.status).toBe(409);
    expect(draft.body.error.code).toBe('issue_not_scheduled');
    await ws.api('POST', `/v1/newsletter-issues/${i.id}/schedule`, { scheduled_at: future() });
    const res = await ws.api('POST', `/v1/newsletter-issues/${i.id}/unschedule`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'draft', scheduled_at: null, issue_number: null });
  });

  it('DELETE: draft and scheduled -> {success: true}; published -> 400 issue_published', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    const draft = await ws.api('POST', `/v1/newsletters/${n.id}/issues`, {});
    expect((await ws.api('DELETE', `/v1/newsletter-issues/${draft.body.id}`)).body).toEqual({ success: true });
    expect((await ws.api('GET', `/v1/newsletter-issues/${draft.body.id}`)).status).toBe(404);
    const scheduled = await readyIssue(ws, n.id);
    await ws.api('POST', `/v1/newsletter-issues/${scheduled.id}/schedule`, { scheduled_at: future() });
    expect((await ws.api('DELETE', `/v1/newsletter-issues/${scheduled.id}`)).status).toBe(200);
    const published = await readyIssue(ws, n.id);
    await ws.api('POST', `/v1/newsletter-issues/${published.id}/publish`);
    const refused = await ws.api('DELETE', `/v1/newsletter-issues/${published.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('issue_published');
  });

  it('numbers are distinct and consecutive under parallel publishes, from start_issue_number, never reused', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    await rowsIn(ws.id, 'UPDATE newsletters SET start_issue_number = 10, next_issue_number = 10 WHERE id = ?', n.id);
    const issues = await Promise.all(Array.from({ length: 8 }, () => readyIssue(ws, n.id)));
    // Each issue published by two racing calls, all at once.
    const results = await Promise.all(issues.flatMap((i) => [0, 1].map(() => ws.api('POST', `/v1/newsletter-issues/${i.id}/publish`))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const numbers = (
      await rowsIn<{ issue_number: number }>(ws.id, 'SELECT issue_number FROM newsletter_issues WHERE newsletter_id = ? ORDER BY issue_number', n.id)
    ).map((r) => r.issue_number);
    expect(numbers).toEqual([10, 11, 12, 13, 14, 15, 16, 17]);
    const next = await readyIssue(ws, n.id);
    const draftGone = await ws.api('POST', `/v1/newsletters/${n.id}/issues`, { subject: 'x', content: MARKDOWN });
    await ws.api('DELETE', `/v1/newsletter-issues/${draftGone.body.id}`);
    expect((await ws.api('POST', `/v1/newsletter-issues/${next.id}/publish`)).body.issue_number).toBe(18);
  });

  it('publish-issues sweep publishes due scheduled issues once under overlapping runs', async () => {
    const ws = await makeWorkspace();
    const n = await newsletter(ws);
    const issues = await Promise.all(Array.from({ length: 3 }, () => readyIssue(ws, n.id)));
    for (const i of issues) await ws.api('POST', `/v1/newsletter-issues/${i.id}/schedule`, { scheduled_at: future() });
    const notDue = await readyIssue(ws, n.id);
    await ws.api('POST', `/v1/newsletter-issues/${notDue.id}/schedule`, { scheduled_at: future(600) });
    await rowsIn(
      ws.id,
      `UPDATE newsletter_issues SET scheduled_at = '2020-01-01T00:00:00.000Z' WHERE newsletter_id = ? AND id <> ?`,
      n.id,
      notDue.id,
    );
    const runs = await Promise.all([0, 1, 2].map(() => admin('POST', '/sweeps/publish-issues')));
    expect(runs.every((r) => r.status === 200)).toBe(true);
    // Each issue is counted by the one run that published it (rows written by triggers do not count).
    expect(runs.reduce((sum, r) => sum + r.body.result.issues_published, 0)).toBe(3);
    const rows = await rowsIn<{ status: string; issue_number: number | null }>(
      ws.id,
      'SELECT status, issue_number FROM newsletter_issues WHERE newsletter_id = ? ORDER BY issue_number',
      n.id,
    );
    expect(
      rows
        .filter((r) => r.status === 'published')
        .map((r) => r.issue_number)
        .sort(),
    ).toEqual([1, 2, 3]);
    expect(rows.filter((r) => r.status === 'scheduled')).toHaveLength(1);
  });
});
