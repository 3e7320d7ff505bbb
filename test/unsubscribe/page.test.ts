import { describe, expect, it } from 'vitest';
import { maskEmail } from '../../src/modules/unsubscribe/pages';
import { finished, readyCampaign, subscribedContact } from '../email-campaigns/support';
import { addSender, emailWorkspace, outbox } from '../email/support';
import { rowsIn } from '../support/db';
import { adminOk, call, eventually, type TestWorkspace } from '../support/harness';
import { readyIssue, subscribe } from '../newsletters/support';

/** A newsletter sent under `profileId` to one subscriber; the path of her unsubscribe link. */
async function unsubscribePath(ws: TestWorkspace, email: string, profileId: string | null) {
  const n = await ws.api('POST', '/v1/newsletters', { name: 'Garden Notes', sender_profile_id: profileId });
  const contact = await ws.api('POST', '/v1/contacts', { email, name: 'Jane Doe' });
  await ws.api('PUT', `/v1/contacts/${contact.body.id}/consent/email`, { state: 'subscribed' });
  await subscribe(ws, n.body.id, contact.body.id);
  await ws.api('POST', `/v1/newsletter-issues/${(await readyIssue(ws, n.body.id, 'Spring')).id}/publish`);
  await adminOk('POST', '/sweeps/deliver-newsletters');
  const [mail] = await eventually(
    () => outbox(ws, email),
    (m) => m.length === 1,
    10_000,
  );
  return new URL(mail.headers['List-Unsubscribe'].slice(1, -1)).pathname;
}

const html = async (method: 'GET' | 'POST', path: string) => {
  const res = await call(method, path);
  return { status: res.status, body: String(res.body) };
};

describe('the unsubscribe page', () => {
  it('names the sender profile the email came from and the masked address; a revisit says already unsubscribed, without the button', async () => {
    const { ws } = await emailWorkspace({ name: 'Workspace Name' });
    const letters = await addSender(ws, { from_name: 'Garden & Club' });
    const path = await unsubscribePath(ws, 'jane.doe@example.com', letters.id);

    const first = await html('GET', path);
    expect(first.status).toBe(200);
    expect(first.body).toMatch(/<html lang="en">/);
    expect(first.body).toContain('Stop receiving <strong>Garden Notes</strong> from <strong>Garden &amp; Club</strong>?');
    expect(first.body).not.toContain('Workspace Name');
    expect(first.body).toContain('j***@example.com');
    expect(first.body).not.toContain('jane.doe');
    expect(first.body).toContain('<form method="post"><button type="submit">Unsubscribe</button></form>');

    const done = await html('POST', path);
    expect(done.status).toBe(200);
    expect(done.body).toContain('You are unsubscribed');
    expect(done.body).toContain('j***@example.com');

    const revisit = await html('GET', path);
    expect(revisit.status).toBe(200);
    expect(revisit.body).toContain('You are already unsubscribed');
    expect(revisit.body).toContain('Garden &amp; Club');
    expect(revisit.body).not.toContain('<form');
    expect(revisit.body).not.toContain('<button');
    // A repeated one-click POST answers 200 and says the same.
    const again = await html('POST', path);
    expect(again.status).toBe(200);
    expect(again.body).toContain('You are already unsubscribed');
  });

  it('without a profile on the newsletter, the sender is the default profile the email went out under', async () => {
    const { ws } = await emailWorkspace({ name: 'Workspace Name' });
    const path = await unsubscribePath(ws, 'x@example.org', null);
    const page = await html('GET', path);
    expect(page.body).toContain('from <strong>Acme</strong>');
    expect(page.body).toContain('x***@example.org');
  });

  it('a campaign email: the campaign sender profile and the address; a revisit after the one-click POST has no button', async () => {
    const { ws } = await emailWorkspace({ name: 'Workspace Name' });
    const promo = await addSender(ws, { from_name: 'Promo Desk' });
    await subscribedContact(ws, 'bea@example.net', { first_name: 'Bea' });
    const c = await readyCampaign(ws, { sender_profile_id: promo.id });
    await ws.api('POST', `/v1/email-campaigns/${c.id}/send`);
    await finished(ws, c.id);
    const [{ unsubscribe_token: token }] = await rowsIn<{ unsubscribe_token: string }>(
      ws.id,
      'SELECT unsubscribe_token FROM email_campaign_recipients WHERE workspace_id = ? AND campaign_id = ?',
      ws.id,
      c.id,
    );
    const first = await html('GET', `/u/${token}`);
    expect(first.body).toContain('Stop receiving <strong>marketing email</strong> from <strong>Promo Desk</strong>?');
    expect(first.body).toContain('b***@example.net');
    expect(first.body).toContain('<button');
    const oneClick = await call('POST', `/u/${token}`, {
      rawBody: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(String(oneClick.body)).toContain('You are unsubscribed');
    const revisit = await html('GET', `/u/${token}`);
    expect(revisit.body).toContain('You are already unsubscribed');
    expect(revisit.body).not.toContain('<button');
  });

  it('masks an address down to its first character and the domain', () => {
    expect(maskEmail('jane.doe@example.com')).toBe('j***@example.com');
    expect(maskEmail('j@example.com')).toBe('j***@example.com');
    expect(maskEmail('örjan@example.se')).toBe('ö***@example.se');
    expect(maskEmail('no-at-sign')).toBe('***');
  });
});
