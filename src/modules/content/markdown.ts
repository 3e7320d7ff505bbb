import type { Nodes, Paragraph, PhrasingContent, Root, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import type { Block } from './blocks';
import { escapeHtml } from './tokens';

/**
 * Markdown through a CommonMark parser (mdast-util-from-markdown, on
 * micromark): never regular expressions over markdown. Two directive lines sit
 * on top, each alone on its line at the top level: `::button[Label](url)` and
 * `::snippet[name-or-uuid]`. Known limitation: the button URL ends at its
 * first `)`, so a URL containing a parenthesis must percent-encode it (`%28`,
 * `%29`).
 */
const BUTTON = /^::button\[([^\]\r\n]+)\]\(([^)\s]+)\)$/;
const SNIPPET = /^::snippet\[([^\]\r\n]+)\]$/;

export type MarkdownResult = { blocks: Block[]; errors: string[]; warnings: string[] };

const sourceOf = (src: string, node: { position?: { start: { offset?: number }; end: { offset?: number } } }) =>
  node.position?.start.offset !== undefined && node.position.end.offset !== undefined ? src.slice(node.position.start.offset, node.position.end.offset) : '';

/** Plain text of a node: what its text leaves say, images by their alt text. */
export function plainOf(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.type === 'html' ? node.value : node.value;
  if (node.type === 'image') return node.alt ?? '';
  if (node.type === 'break') return '\n';
  if ('children' in node) return (node.children as Nodes[]).map(plainOf).join('');
  return '';
}

/** Top-level markdown as blocks; degradations (deeper headings, ordered and nested lists, quotes, code) are documented. */
export function markdownToBlocks(markdown: string, opts: { allowSnippets: boolean }): MarkdownResult {
  const out: MarkdownResult = { blocks: [], errors: [], warnings: [] };
  const root = fromMarkdown(markdown);
  const line = (node: RootContent) => node.position?.start.line ?? 0;
  for (const node of root.children) visit(node);
  return out;

  function visit(node: RootContent) {
    switch (node.type) {
      case 'heading': {
        const text = sourceOf(markdown, { position: { start: node.children[0]?.position?.start ?? { offset: undefined }, end: node.children.at(-1)?.position?.end ?? { offset: undefined } } }).trim();
        if (text) out.blocks.push({ type: 'heading', text, level: Math.min(node.depth, 3) });
        return;
      }
      case 'paragraph':
        return paragraph(node);
      case 'list':
        out.blocks.push({ type: 'bullets', items: listItems(node) });
        return;
      case 'thematicBreak':
        out.blocks.push({ type: 'divider' });
        return;
      case 'blockquote':
        for (const child of node.children) visit(child);
        return;
      case 'code':
        for (const l of node.value.split('\n')) if (l.trim()) out.blocks.push({ type: 'paragraph', text: codeSpan(l) });
        return;
      case 'html': {
        // Raw HTML is never passed through: it is shown as text.
        const text = node.value.trim();
        if (text) out.blocks.push({ type: 'paragraph', text: escapeMarkdown(text) });
        out.warnings.push(`markdown line ${line(node)}: raw HTML is escaped and shown as text`);
        return;
      }
      default:
        return; // definitions and anything else carry no visible content of their own
    }
  }

  function listItems(list: Extract<RootContent, { type: 'list' }>): string[] {
    const items: string[] = [];
    for (const item of list.children) {
      for (const child of item.children) {
        if (child.type === 'list') items.push(...listItems(child));
        else {
          const text = child.type === 'paragraph' || child.type === 'heading' ? sourceOf(markdown, child).trim() : escapeMarkdown(plainOf(child).trim());
          if (text) items.push(text);
        }
      }
    }
    return items.length ? items : [' '];
  }

  /** A paragraph, split around any directive lines inside it. */
  function paragraph(node: Paragraph) {
    const raw = sourceOf(markdown, node);
    const lines = raw.split(/\r?\n/);
    let pending: string[] = [];
    const flush = () => {
      const text = pending.join('\n').trim();
      if (text) out.blocks.push({ type: 'paragraph', text });
      pending = [];
    };
    lines.forEach((l, i) => {
      const trimmed = l.trim();
      const at = `markdown line ${(node.position?.start.line ?? 1) + i}`;
      if (trimmed.startsWith('::button')) {
        flush();
        const m = BUTTON.exec(trimmed);
        if (!m) out.errors.push(`${at}: a button directive is ::button[Label](https://url) (a URL containing a parenthesis must encode it as %28 / %29)`);
        else out.blocks.push({ type: 'button', label: m[1].trim(), url: m[2] });
      } else if (trimmed.startsWith('::snippet')) {
        flush();
        const m = SNIPPET.exec(trimmed);
        if (!m) out.errors.push(`${at}: a snippet directive is ::snippet[name-or-uuid]`);
        else if (!opts.allowSnippets) out.warnings.push(`${at}: snippets cannot include other snippets; the directive is ignored`);
        else out.blocks.push({ type: 'snippet', ref: m[1].trim() });
      } else pending.push(l);
    });
    flush();
  }
}

/** Backslash-escapes markdown punctuation so text reads back literally. */
export const escapeMarkdown = (s: string) => s.replace(/[\\`*_{}[\]()#+\-.!<>|~&]/g, '\\$&');
const codeSpan = (s: string) => {
  const longest = Math.max(0, ...Array.from(s.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence} ${s} ${fence}`;
};

export type InlineOut = { html: string; text: string; warnings: string[] };
export type InlineStyle = { link: string };

const SAFE_SCHEMES = /^(https?:|mailto:|tel:)/i;

/**
 * Inline markdown (a paragraph's, a heading's, a list item's text) as email
 * HTML and plain text. Raw HTML is escaped; links with any scheme other than
 * http(s), mailto and tel lose their href; non-https links are warned about.
 */
export function renderInline(markdown: string, style: InlineStyle, where: string): InlineOut {
  const root: Root = fromMarkdown(markdown);
  const warnings: string[] = [];
  const html: string[] = [];
  const text: string[] = [];
  root.children.forEach((block, i) => {
    if (i > 0) {
      html.push('<br><br>');
      text.push('\n\n');
    }
    const r = phrasingOf(block);
    html.push(r.html);
    text.push(r.text);
  });
  return { html: html.join(''), text: text.join(''), warnings };

  function phrasingOf(node: Nodes): { html: string; text: string } {
    if ('children' in node && node.type !== 'paragraph' && node.type !== 'heading' && !isPhrasing(node)) {
      const parts = (node.children as Nodes[]).map(phrasingOf);
      return { html: parts.map((p) => p.html).join('<br>'), text: parts.map((p) => p.text).join('\n') };
    }
    if (node.type === 'code') return { html: `<code>${escapeHtml(node.value)}</code>`, text: node.value };
    if (node.type === 'thematicBreak') return { html: '', text: '' };
    if (node.type === 'html') return { html: escapeHtml(node.value), text: node.value };
    if ('children' in node) return join((node.children as PhrasingContent[]).map(inline));
    return { html: '', text: 'value' in node ? String(node.value) : '' };
  }

  function join(parts: { html: string; text: string }[]) {
    return { html: parts.map((p) => p.html).join(''), text: parts.map((p) => p.text).join('') };
  }

  function inline(node: PhrasingContent): { html: string; text: string } {
    switch (node.type) {
      case 'text':
        return { html: escapeHtml(node.value), text: node.value };
      case 'emphasis': {
        const r = join(node.children.map(inline));
        return { html: `<em>${r.html}</em>`, text: r.text };
      }
      case 'strong': {
        const r = join(node.children.map(inline));
        return { html: `<strong>${r.html}</strong>`, text: r.text };
      }
      case 'delete': {
        const r = join(node.children.map(inline));
        return { html: `<s>${r.html}</s>`, text: r.text };
      }
      case 'inlineCode':
        return { html: `<code style="font-family:monospace;">${escapeHtml(node.value)}</code>`, text: node.value };
      case 'break':
        return { html: '<br>', text: '\n' };
      case 'html':
        return { html: escapeHtml(node.value), text: node.value };
      case 'link': {
        const r = join(node.children.map(inline));
        if (!SAFE_SCHEMES.test(node.url)) {
          warnings.push(`${where}: link "${node.url.slice(0, 100)}" has no http(s), mailto or tel address and is shown as text`);
          return r;
        }
        if (/^http:/i.test(node.url)) warnings.push(`${where}: link ${node.url.slice(0, 100)} is not https`);
        return { html: `<a href="${escapeHtml(node.url)}" style="${style.link}" target="_blank">${r.html || escapeHtml(node.url)}</a>`, text: r.text && r.text !== node.url ? `${r.text} (${node.url})` : node.url };
      }
      case 'image': {
        if (!/^https?:/i.test(node.url)) {
          warnings.push(`${where}: image "${node.url.slice(0, 100)}" has no http(s) address and is left out`);
          return { html: escapeHtml(node.alt ?? ''), text: node.alt ?? '' };
        }
        if (!node.alt) warnings.push(`${where}: image ${node.url.slice(0, 100)} has no alt text`);
        if (/^http:/i.test(node.url)) warnings.push(`${where}: image ${node.url.slice(0, 100)} is not https`);
        return { html: `<img src="${escapeHtml(node.url)}" alt="${escapeHtml(node.alt ?? '')}" style="max-width:100%;height:auto;border:0;">`, text: node.alt ?? '' };
      }
      default: {
        // references without definitions and the like: their literal text
        const raw = plainOf(node as Nodes);
        return { html: escapeHtml(raw), text: raw };
      }
    }
  }
}

const PHRASING = new Set(['text', 'emphasis', 'strong', 'delete', 'inlineCode', 'break', 'link', 'image', 'linkReference', 'imageReference', 'html', 'footnoteReference']);
const isPhrasing = (node: Nodes) => PHRASING.has(node.type);
