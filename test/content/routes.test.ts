import { describe, expect, it } from 'vitest';
import { emailWorkspace } from '../email/support';
import { admin, type ApiResponse, type TestWorkspace } from '../support/harness';

/**
 * The content limits on every route that takes content: email campaign and
 * newsletter issue create and PATCH, and the operator's snippet create. One
 * block limit for all three sources, with one message, and whatever a source
 * is accepted with is accepted again when its stored design is sent back.
 */
type Write = { name: string; send: (ws: TestWorkspace, content: unknown) => Promise<ApiResponse> };

const WRITES: Write[] = [
  { name: 'POST /v1/email-campaigns', send: (ws, content) => ws.api('POST', '/v1/email-campaigns', { name: 'Limits', subject: 'S', content }) },
  {
    name: 'PATCH /v1/email-campaigns/{id}',
    send: async (ws, content) => {
      const created = await ws.api('POST', '/v1/email-campaigns', { name: 'Limits', subject: 'S' });
      return ws.api('PATCH', `/v1/email-campaigns/${created.body.id}`, { content });
    },
  },
  {
    name: 'POST /v1/newsletters/{id}/issues',
    send: async (ws, content) => {
      const n = await ws.api('POST', '/v1/newsletters', { name: `N ${crypto.randomUUID()}` });
      return ws.api('POST', `/v1/newsletters/${n.body.id}/issues`, { subject: 'S', content });
    },
  },
  {
    name: 'PATCH /v1/newsletter-issues/{id}',
    send: async (ws, content) => {
      const n = await ws.api('POST', '/v1/newsletters', { name: `N ${crypto.randomUUID()}` });
      const issue = await ws.api('POST', `/v1/newsletters/${n.body.id}/issues`, {});
      return ws.api('PATCH', `/v1/newsletter-issues/${issue.body.id}`, { content });
    },
  },
];

const snippet = (ws: TestWorkspace, markdown: string) =>
  admin('POST', `/workspaces/${ws.id}/snippets`, { name: `S ${crypto.randomUUID()}`, markdown });

const refused = (res: ApiResponse, message: string) => {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
  expect(res.body.error.code).toBe('invalid_content');
  expect(res.body.error.message).toContain(message);
};
const accepted = (res: ApiResponse) => expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeLessThan(300);

const markdownOf = (blocks: number) => 'p\n\n'.repeat(blocks);
const dividers = (blocks: number) => Array.from({ length: blocks }, () => ({ type: 'divider' }));
const TOO_MANY = 'content has 1,001 blocks; at most 1,000';
const NESTING = 'block quotes and lists nest at most 16 levels';

describe.each(WRITES)('$name', ({ send }) => {
  it('1,001 blocks are refused with one message whatever the source; 1,000 are accepted and the stored design is accepted again', async () => {
    const { ws } = await emailWorkspace();
    for (const content of [{ markdown: markdownOf(1001) }, { blocks: dividers(1001) }, { design_json: { blocks: dividers(1001) } }]) {
      const res = await send(ws, content);
      refused(res, TOO_MANY);
      expect(res.body.error.message).toBe(TOO_MANY);
    }
    for (const content of [{ markdown: markdownOf(1000) }, { blocks: dividers(1000) }, { design_json: { blocks: dividers(1000) } }]) {
      const first = await send(ws, content);
      accepted(first);
      const again = await send(ws, { design_json: first.body.design_json });
      accepted(again);
      expect(again.body.compiled_html).toBe(first.body.compiled_html);
    }
  });

  it('5,000 nested quote or list markers are a 400 naming the limit, never a 500; 16 levels are accepted', async () => {
    const { ws } = await emailWorkspace();
    for (const marker of ['> ', '- ']) {
      refused(await send(ws, { markdown: `${marker.repeat(5000)}a` }), `content.markdown: ${NESTING}; line 1 nests 5,000`);
      refused(await send(ws, { markdown: `${marker.repeat(17)}a` }), `content.markdown: ${NESTING}; line 1 nests 17`);
      refused(
        await send(ws, { blocks: [{ type: 'paragraph', text: `${marker.repeat(5000)}a` }] }),
        `block 1 (paragraph): ${NESTING}; line 1 nests 5,000`,
      );
      accepted(await send(ws, { markdown: `${marker.repeat(16)}a` }));
    }
  });

  it('markdown that costs the parser super-linear time is refused at once', async () => {
    const { ws } = await emailWorkspace();
    refused(await send(ws, { markdown: '*a'.repeat(16_000) }), "content's paragraphs, headings and list items weigh 512,000,000 in inline markup");
    refused(await send(ws, { markdown: 'a\n'.repeat(3001) }), 'content.markdown has 3,001 lines; at most 3,000');
  });
});

describe('POST /admin/v1/workspaces/{ws}/snippets', () => {
  it('refuses markdown past the content limits with invalid_content; at the limits it is created', async () => {
    const { ws } = await emailWorkspace();
    refused(await snippet(ws, markdownOf(1001)), TOO_MANY);
    refused(await snippet(ws, `${'> '.repeat(5000)}a`), `markdown: ${NESTING}; line 1 nests 5,000`);
    refused(await snippet(ws, `${'- '.repeat(17)}a`), `markdown: ${NESTING}; line 1 nests 17`);
    refused(await snippet(ws, '*a'.repeat(16_000)), "content's paragraphs, headings and list items weigh 512,000,000 in inline markup");
    refused(await snippet(ws, 'a\n'.repeat(3001)), 'markdown has 3,001 lines; at most 3,000');
    for (const markdown of [markdownOf(1000), `${'- '.repeat(16)}a`, 'a\n'.repeat(3000)]) expect((await snippet(ws, markdown)).status).toBe(201);
  });
});
