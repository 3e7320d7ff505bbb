import { describe, expect, it } from 'vitest';
import { compileContent, isCompiled } from '../../src/modules/content/compile';
import { webContent } from '../../src/modules/content/web';

const compiled = (content: unknown, opts = {}) => {
  const r = compileContent(content, opts);
  if (!isCompiled(r)) throw new Error(JSON.stringify(r.compile));
  return r.compiled_html;
};

describe('webContent: compiled email content for a web page', () => {
  it('keeps the body and drops the document, the hidden preheader and the subscriber footer', () => {
    const html = compiled({ markdown: '# Hi\n\nBody text.' }, { preheader: 'Peek inside', title: 'Subject' });
    expect(html).toContain('You are receiving this email because you subscribed');
    const web = webContent(html);
    expect(web.dir).toBe('ltr');
    expect(web.html).toContain('Body text.');
    for (const gone of ['You are receiving', '[[unsubscribe_url]]', 'Peek inside', '<body', '<html', '<title>', 'display:none'])
      expect(web.html).not.toContain(gone);
  });

  it('right-to-left content keeps its direction and loses its footer', () => {
    const web = webContent(compiled({ markdown: 'שלום', direction: 'rtl' }));
    expect(web.dir).toBe('rtl');
    expect(web.html).toContain('שלום');
    expect(web.html).not.toContain('unsubscribe');
  });

  it('drops a footer of other styling too (content compiled before a change of its markup)', () => {
    const older = compiled({ markdown: 'Old issue.' }).replace(
      /<tr><td class="pad" style="padding:24px 40px 32px;[^"]*"/,
      '<tr><td class="pad" style="padding:20px 40px;"',
    );
    const web = webContent(older);
    expect(web.html).toContain('Old issue.');
    expect(web.html).not.toContain('You are receiving');
  });
});
