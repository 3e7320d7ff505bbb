import { describe, expect, it } from 'vitest';
import { emailWorkspace } from '../email/support';
import { call, type TestWorkspace } from '../support/harness';
import { newsletter, readyIssue } from './support';

const publish = (ws: TestWorkspace, id: string) => ws.api('POST', `/v1/newsletter-issues/${id}/publish`);
const page = async (path: string) => {
  const res = await call('GET', path);
  return { status: res.status, html: String(res.body) };
};

describe('public newsletter archive pages', () => {
  it('an issue renders for the web: no subscriber footer, no unsubscribe link, no dead href; name, number, date, previous, next and the list', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws, 'Web Archive');
    for (const subject of ['First post', 'Second post', 'Third post']) await publish(ws, (await readyIssue(ws, n.id, subject)).id);
    const base = `/n/${ws.id}/web-archive`;
    const [{ published_at: publishedAt }] = (await ws.api('GET', `/v1/newsletters/${n.id}/issues?limit=10`)).body.data.filter(
      (i: { issue_number: number }) => i.issue_number === 2,
    );

    const second = await page(`${base}/2`);
    expect(second.status).toBe(200);
    expect(second.html).toContain('This week in the shop');
    expect(second.html).not.toContain('You are receiving this email');
    expect(second.html).not.toMatch(/unsubscribe/i);
    expect(second.html).not.toContain('href="#"');
    expect(second.html).not.toContain('[[');
    expect(second.html).toMatch(/<html lang="en">/);
    expect(second.html).toContain(`<a href="${base}">Web Archive</a>`);
    expect(second.html).toContain('<h1>Second post</h1>');
    expect(second.html).toContain('Issue #2');
    const readable = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(publishedAt));
    expect(second.html).toContain(`<time datetime="${publishedAt}">${readable}</time>`);
    expect(second.html).toContain(`<a rel="prev" href="${base}/1">`);
    expect(second.html).toContain(`<a rel="next" href="${base}/3">`);
    expect(second.html).toContain(`<a class="all" href="${base}">`);

    const first = await page(`${base}/1`);
    expect(first.html).not.toContain('rel="prev"');
    expect(first.html).toContain(`<a rel="next" href="${base}/2">`);
    const last = await page(`${base}/3`);
    expect(last.html).toContain(`<a rel="prev" href="${base}/2">`);
    expect(last.html).not.toContain('rel="next"');
  });

  it('previous and next skip issues left out of the archive', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws, 'Skip Archive');
    await publish(ws, (await readyIssue(ws, n.id, 'One')).id);
    await publish(ws, (await readyIssue(ws, n.id, 'Two', { include_in_archive: false })).id);
    await publish(ws, (await readyIssue(ws, n.id, 'Three')).id);
    const base = `/n/${ws.id}/skip-archive`;
    const three = await page(`${base}/3`);
    expect(three.html).toContain(`<a rel="prev" href="${base}/1">`);
    expect((await page(`${base}/2`)).status).toBe(404);
  });

  it('the list links each issue to its page, with its number and a readable date', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws, 'Linked List');
    for (const subject of ['Alpha', 'Beta']) await publish(ws, (await readyIssue(ws, n.id, subject)).id);
    const base = `/n/${ws.id}/linked-list`;
    const list = await page(base);
    expect(list.status).toBe(200);
    expect(list.html).toContain(`<a href="${base}/1">Alpha</a>`);
    expect(list.html).toContain(`<a href="${base}/2">Beta</a>`);
    expect(list.html).toMatch(/#2 · <time datetime="[^"]+">\d{1,2} [A-Z][a-z]+ \d{4}<\/time>/);
    expect(list.html.indexOf('Beta')).toBeLessThan(list.html.indexOf('Alpha'));
  });
});
