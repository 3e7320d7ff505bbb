import { describe, expect, it } from 'vitest';
import { adminOk, eventually, freshIp } from '../support/harness';
import { publicPost } from '../support/public-posts';
import { futureHour, setupType, bookingSender } from './helpers';

const LURE = 'Your account is locked, call +1 555 0100';

describe('booking confirmation: text of the caller never leads', () => {
  it('a name booked through the hosted page comes after the fixed lines: not in the subject, not the first line of text or html', async () => {
    const { ws, mt } = await setupType();
    await bookingSender(ws.id);
    const email = `lure-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await publicPost(`/book/${ws.id}/${mt.slug}`, {
      ip: freshIp(),
      fields: { start_at: futureHour(), timezone: 'UTC', name: LURE, email },
    });
    expect(res.status).toBe(303);
    const [mail] = await eventually(
      async () => (await adminOk('GET', `/workspaces/${ws.id}/outbox?channel=email&to=${encodeURIComponent(email)}`)).data as any[],
      (rows) => rows.length === 1,
    );

    expect(mail.subject).toMatch(/^Confirmed: Intro call on /);
    expect(mail.subject).not.toContain(LURE);
    const lines = (mail.text as string).split('\n');
    expect(lines[0]).toBe('Your booking is confirmed.');
    expect(lines.findIndex((l) => l.includes(LURE))).toBeGreaterThan(2);
    expect(lines.find((l) => l.includes(LURE))).toBe(`Booked under the name: ${LURE}`);
    expect(mail.html).toMatch(/^<p>Your booking is confirmed\.<\/p>/);
    expect(mail.html.indexOf(LURE)).toBeGreaterThan(mail.html.indexOf('When:'));
  });
});
