import { describe, expect, it } from 'vitest';
import { ADDRESS, BAD_SUBJECTS, emailWorkspace, expectOneMailbox, outbox } from '../email/support';
import { rowsIn } from '../support/db';
import { admin, adminOk, call, eventually, type TestWorkspace } from '../support/harness';
import { newsletter, readyIssue, subscribe } from './support';

async function subscribedContact(ws: TestWorkspace, email: string, firstName: string) {
  const c = await ws.api('POST', '/v1/contacts', { email, name: `${firstName} Tester` });
  await ws.api('PUT', `/v1/contacts/${c.body.id}/consent/email`, { state: 'subscribed' });
  return c.body.id as string;
}

const publish = (ws: TestWorkspace, id: string) => ws.api('POST', `/v1/newsletter-issues/${id}/publish`);
const deliverSweep = () => adminOk('POST', '/sweeps/deliver-newsletters');
const deliveries = (ws: TestWorkspace) =>
  rowsIn<{ contact_id: string; issue_number: number; status: string }>(
    ws.id,
    `SELECT d.contact_id, i.issue_number, d.status FROM newsletter_deliveries d JOIN newsletter_issues i ON i.id = d.issue_id WHERE d.workspace_id = ? ORDER BY i.issue_number, d.contact_id`,
    ws.id,
  );
const settled = (ws: TestWorkspace, n: number) =>
  eventually(
    () => deliveries(ws),
    (rows) => rows.length === n && rows.every((r) => r.status !== 'queued'),
    10_000,
  );

describe('newsletter delivery', () => {
  it('operator subscribe: 201, re-subscribe an active subscription 200; active_subscriber_count counts them; unknown contact 404', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws);
    const contact = await subscribedContact(ws, 'sub@example.com', 'Sub');
    const first = await admin('POST', `/workspaces/${ws.id}/newsletters/${n.id}/subscriptions`, { contact_id: contact });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ contact_id: contact, status: 'active' });
    const again = await admin('POST', `/workspaces/${ws.id}/newsletters/${n.id}/subscriptions`, { contact_id: contact });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect((await ws.api('GET', `/v1/newsletters/${n.id}`)).body.active_subscriber_count).toBe(1);
    expect((await ws.api('GET', '/v1/newsletters')).body.data[0].active_subscriber_count).toBe(1);
    expect((await admin('POST', `/workspaces/${ws.id}/newsletters/${n.id}/subscriptions`, { contact_id: crypto.randomUUID() })).status).toBe(404);
  });

  it('end to end: a caught-up and a behind subscriber, publish, sweeps; the outbox holds exactly the right messages, never twice', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws, 'Field Notes');
    // Two issues already out before anyone subscribes.
    for (const s of ['Back one', 'Back two']) expect((await publish(ws, (await readyIssue(ws, n.id, s)).id)).status).toBe(200);
    const ada = await subscribedContact(ws, 'ada@example.com', 'Ada');
    const bob = await subscribedContact(ws, 'bob@example.com', 'Bob');
    const eve = await subscribedContact(ws, 'eve@example.com', 'Eve');
    await subscribe(ws, n.id, ada); // next_issue: caught up at #2
    await rowsIn(ws.id, `UPDATE newsletters SET start_policy = 'first_issue', catchup_interval_days = 2 WHERE id = ?`, n.id);
    await subscribe(ws, n.id, bob); // first_issue: behind, walks #1, #2 at the cadence
    await subscribe(ws, n.id, eve);
    await ws.api('PUT', `/v1/contacts/${eve}/consent/email`, { state: 'unsubscribed' }); // not eligible any more

    const third = await readyIssue(ws, n.id, 'Hello [[first_name : friend]], issue three');
    expect((await publish(ws, third.id)).body.issue_number).toBe(3);

    // Overlapping sweeps: every (subscription, issue) is delivered once.
    await Promise.all([deliverSweep(), deliverSweep(), deliverSweep()]);
    await settled(ws, 3);
    expect(await deliveries(ws)).toEqual(
      [
        { contact_id: bob, issue_number: 1, status: 'sent' },
        { contact_id: eve, issue_number: 1, status: 'skipped' },
        { contact_id: ada, issue_number: 3, status: 'sent' },
      ].sort((a, b) => a.issue_number - b.issue_number || a.contact_id.localeCompare(b.contact_id)),
    );
    const adaMail = await outbox(ws, 'ada@example.com');
    expect(adaMail).toHaveLength(1);
    expect(adaMail[0].subject).toBe('Hello Ada, issue three');
    expect(adaMail[0].headers['List-Unsubscribe']).toMatch(/^<https?:\/\/[^>]+\/u\/[^>]+>$/);
    expect(adaMail[0].headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(adaMail[0].html).toContain('/u/');
    const bobMail = await outbox(ws, 'bob@example.com');
    expect(bobMail.map((m) => m.subject)).toEqual(['Back one']);
    expect(await outbox(ws, 'eve@example.com')).toEqual([]);

    // Nothing more is due until Bob's next catch-up slot.
    await deliverSweep();
    expect(await deliveries(ws)).toHaveLength(3);
    await rowsIn(ws.id, `UPDATE newsletter_subscriptions SET next_catchup_at = '2020-01-01T00:00:00.000Z' WHERE contact_id = ?`, bob);
    await deliverSweep();
    await settled(ws, 4);
    await rowsIn(
      ws.id,
      `UPDATE newsletter_subscriptions SET next_catchup_at = '2020-01-01T00:00:00.000Z' WHERE contact_id = ? AND next_catchup_at IS NOT NULL`,
      bob,
    );
    await deliverSweep();
    await settled(ws, 5);
    expect((await outbox(ws, 'bob@example.com')).map((m) => m.subject).reverse()).toEqual(['Back one', 'Back two', 'Hello Bob, issue three']);
    // Bob is caught up now: the next issue reaches both at once.
    const [bobSub] = await rowsIn(ws.id, 'SELECT cursor, next_catchup_at FROM newsletter_subscriptions WHERE contact_id = ?', bob);
    expect(bobSub).toEqual({ cursor: 3, next_catchup_at: null });
    await publish(ws, (await readyIssue(ws, n.id, 'Four')).id);
    await deliverSweep();
    await settled(ws, 7);
    expect(
      (await outbox(ws))
        .filter((m) => m.subject === 'Four')
        .map((m) => m.to)
        .sort(),
    ).toEqual(['ada@example.com', 'bob@example.com']);
  });

  it('one-click unsubscribe: POST to the List-Unsubscribe URL ends the subscription and records email consent', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws);
    const ada = await subscribedContact(ws, 'ada@example.com', 'Ada');
    await subscribe(ws, n.id, ada);
    await publish(ws, (await readyIssue(ws, n.id, 'One')).id);
    await deliverSweep();
    const [mail] = await eventually(
      () => outbox(ws, 'ada@example.com'),
      (m) => m.length === 1,
      10_000,
    );
    const url = new URL(mail.headers['List-Unsubscribe'].slice(1, -1));
    const page = await call('GET', url.pathname);
    expect(page.status).toBe(200);
    expect((await ws.api('GET', `/v1/newsletters/${n.id}`)).body.active_subscriber_count).toBe(1);
    const done = await call('POST', url.pathname, {
      rawBody: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(done.status).toBe(200);
    expect((await ws.api('GET', `/v1/newsletters/${n.id}`)).body.active_subscriber_count).toBe(0);
    expect((await ws.api('GET', `/v1/contacts/${ada}/consent`)).body.email.consent_state).toBe('unsubscribed');
    expect((await call('POST', url.pathname)).status).toBe(200);
    expect((await call('POST', '/u/not-a-token')).status).toBe(404);
  });

  it('the public archive lists published issues in the archive only, each readable', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws, 'Archive Test');
    const shown = await readyIssue(ws, n.id, 'Shown issue');
    const hidden = await readyIssue(ws, n.id, 'Hidden issue', { include_in_archive: false });
    await readyIssue(ws, n.id, 'Draft issue');
    const scheduled = await readyIssue(ws, n.id, 'Scheduled issue');
    await ws.api('POST', `/v1/newsletter-issues/${scheduled.id}/schedule`, { scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    await publish(ws, shown.id);
    await publish(ws, hidden.id);
    const list = await call('GET', `/n/${ws.id}/archive-test`);
    expect(list.status).toBe(200);
    const html = await list.body;
    const text = typeof html === 'string' ? html : JSON.stringify(html);
    expect(text).toContain('Shown issue');
    for (const absent of ['Hidden issue', 'Draft issue', 'Scheduled issue']) expect(text).not.toContain(absent);
    const one = await call('GET', `/n/${ws.id}/archive-test/1`);
    expect(one.status).toBe(200);
    expect(String(one.body)).toContain('This week in the shop');
    expect((await call('GET', `/n/${ws.id}/archive-test/2`)).status).toBe(404);
    await rowsIn(ws.id, 'UPDATE newsletters SET archive_enabled = 0 WHERE id = ?', n.id);
    expect((await call('GET', `/n/${ws.id}/archive-test`)).status).toBe(404);
  });

  it('tag auto-subscribe: adding the configured tag subscribes the contact once; an unsubscribe is not undone by the tag', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws);
    const tag = await ws.api('POST', '/v1/tags', { name: 'Weekly readers' });
    await rowsIn(ws.id, 'UPDATE newsletters SET auto_subscribe_tag_id = ? WHERE id = ?', tag.body.id, n.id);
    const created = await ws.api('POST', '/v1/contacts', { email: 'tagged@example.com', tags: ['weekly readers'] });
    const other = await ws.api('POST', '/v1/contacts', { email: 'later@example.com', tags: ['other'] });
    expect((await ws.api('GET', `/v1/newsletters/${n.id}`)).body.active_subscriber_count).toBe(1);
    await ws.api('PATCH', `/v1/contacts/${other.body.id}`, { tags: ['other', 'Weekly readers'] });
    await ws.api('PATCH', `/v1/contacts/${other.body.id}`, { tags: ['Weekly readers'] });
    const subs = await rowsIn<{ contact_id: string; source: string; id: string; unsubscribe_token: string }>(
      ws.id,
      'SELECT contact_id, source, id, unsubscribe_token FROM newsletter_subscriptions WHERE newsletter_id = ?',
      n.id,
    );
    expect(subs.map((s) => s.contact_id).sort()).toEqual([created.body.id, other.body.id].sort());
    expect(subs.every((s) => s.source === 'tag' && /^[0-9a-f-]{36}$/.test(s.id) && s.unsubscribe_token.startsWith(`${ws.id}.`))).toBe(true);
    await rowsIn(ws.id, `UPDATE newsletter_subscriptions SET status = 'unsubscribed' WHERE contact_id = ?`, created.body.id);
    await ws.api('PATCH', `/v1/contacts/${created.body.id}`, { tags: ['Weekly readers', 'again'] });
    expect((await ws.api('GET', `/v1/newsletters/${n.id}`)).body.active_subscriber_count).toBe(1);
  });
});

describe('newsletter headers', () => {
  it('issue create and PATCH refuse control characters in the subject (400)', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws);
    const issue = await readyIssue(ws, n.id, 'Fine');
    for (const subject of BAD_SUBJECTS) {
      for (const res of [
        await ws.api('POST', `/v1/newsletters/${n.id}/issues`, { subject }),
        await ws.api('PATCH', `/v1/newsletter-issues/${issue.id}`, { subject }),
      ]) {
        expect(res.status, JSON.stringify(subject)).toBe(400);
        expect(res.body.message).toEqual(['subject: subject must not contain line breaks or control characters']);
      }
    }
    expect((await ws.api('GET', `/v1/newsletter-issues/${issue.id}`)).body.subject).toBe('Fine');
  });

  it('a stored subject and sender name reach the provider on one line with one From address', async () => {
    const { ws, sender } = await emailWorkspace();
    await rowsIn(
      ws.id,
      'UPDATE sender_profiles SET from_name = ? WHERE id = ?',
      'Real\r\nBcc: victim@example.com, <evil@attacker.example>',
      sender!.id,
    );
    const n = await newsletter(ws);
    await subscribe(ws, n.id, await subscribedContact(ws, 'ada@example.com', 'Ada'));
    const issue = await readyIssue(ws, n.id, 'Weekly');
    await rowsIn(ws.id, 'UPDATE newsletter_issues SET subject = ? WHERE id = ?', 'Weekly\r\nBcc: victim@example.com\u0000\u001b', issue.id);
    expect((await publish(ws, issue.id)).status).toBe(200);
    await deliverSweep();
    await settled(ws, 1);
    const [mail] = await outbox(ws, 'ada@example.com');
    expect(mail.subject).toBe('Weekly Bcc: victim@example.com');
    expect(mail.from).toBe(`"Real Bcc: victim@example.com, <evil@attacker.example>" <${ADDRESS}>`);
    expectOneMailbox(mail.from);
  });
});
