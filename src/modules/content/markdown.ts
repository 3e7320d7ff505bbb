import type { Nodes, Paragraph, Root, RootContent } from 'mdast';
import { fromMarkdown, type Options } from 'mdast-util-from-markdown';
import type { Block } from './blocks';
import { CONTENT_LIMITS, costProblems, measureMarkdown, nestingMessage } from './cost';
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

/**
 * Splitting markdown into blocks needs its block structure only: each block's
 * inline markdown is kept as written and parsed when it is rendered. Without
 * the inline constructs no emphasis run or bracket is resolved against the
 * rest of its paragraph, and the block structure is the same (CommonMark
 * settles blocks before inlines).
 */
const BLOCKS_ONLY: NonNullable<Options['extensions']>[number] = {
  disable: {
    null: [
      'attention',
      'autolink',
      'characterEscape',
      'characterReference',
      'codeText',
      'hardBreakEscape',
      'htmlText',
      'labelEnd',
      'labelStartImage',
      'labelStartLink',
    ],
  },
};

/** `refused`: the markdown is past a cost limit and was not parsed (the errors say which); other errors are single lines. */
export type MarkdownResult = { blocks: Block[]; errors: string[]; warnings: string[]; refused: boolean };

const sourceOf = (src: string, node: { position?: { start: { offset?: number }; end: { offset?: number } } }) =>
  node.position?.start.offset !== undefined && node.position.end.offset !== undefined
    ? src.slice(node.position.start.offset, node.position.end.offset)
    : '';

/** Plain text of a node: what its text leaves say, images by their alt text. */
export function plainOf(node: Nodes): string {
  const out: string[] = [];
  const stack: Nodes[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if ('value' in n && typeof n.value === 'string') out.push(n.value);
    else if (n.type === 'image') out.push(n.alt ?? '');
    else if (n.type === 'break') out.push('\n');
    else if ('children' in n) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return out.join('');
}

/** How deep block quotes and lists sit inside one another, and the line of the deepest. */
function nestingOf(root: Root): { depth: number; line: number } {
  let deepest = { depth: 0, line: 0 };
  const stack: [Nodes, number][] = [[root, 0]];
  while (stack.length) {
    const [node, above] = stack.pop()!;
    const depth = above + (node.type === 'blockquote' || node.type === 'list' ? 1 : 0);
    if (depth > deepest.depth) deepest = { depth, line: node.position?.start.line ?? 0 };
    if (node.type === 'root' || node.type === 'blockquote' || node.type === 'list' || node.type === 'listItem')
      for (const child of node.children) stack.push([child, depth]);
  }
  return deepest;
}

/**
 * Top-level markdown as blocks; degradations (deeper headings, ordered and
 * nested lists, quotes, code) are documented. Markdown past the cost limits is
 * refused before it is parsed (`subject` names it in the message).
 */
export function markdownToBlocks(markdown: string, opts: { allowSnippets: boolean; subject: string }): MarkdownResult {
  const out: MarkdownResult = {
    blocks: [],
    errors: costProblems({ name: opts.subject, plural: false }, measureMarkdown(markdown)),
    warnings: [],
    refused: false,
  };
  if (out.errors.length) return { ...out, refused: true };
  const root = fromMarkdown(markdown, { extensions: [BLOCKS_ONLY] });
  // Lists nested by indentation alone have no marker to count before the parse.
  const nesting = nestingOf(root);
  if (nesting.depth > CONTENT_LIMITS.depth)
    return { ...out, errors: [`${opts.subject}: ${nestingMessage(nesting.depth, nesting.line)}`], refused: true };
  const line = (node: RootContent) => node.position?.start.line ?? 0;
  const stack: RootContent[] = [...root.children].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    switch (node.type) {
      case 'heading': {
        const text = sourceOf(markdown, {
          position: {
            start: node.children[0]?.position?.start ?? { offset: undefined },
            end: node.children.at(-1)?.position?.end ?? { offset: undefined },
          },
        }).trim();
        if (text) out.blocks.push({ type: 'heading', text, level: Math.min(node.depth, 3) });
        break;
      }
      case 'paragraph':
        paragraph(node);
        break;
      case 'list':
        out.blocks.push({ type: 'bullets', items: listItems(node) });
        break;
      case 'thematicBreak':
        out.blocks.push({ type: 'divider' });
        break;
      case 'blockquote':
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
        break;
      case 'code':
        for (const l of node.value.split('\n')) if (l.trim()) out.blocks.push({ type: 'paragraph', text: codeSpan(l) });
        break;
      case 'html': {
        // Raw HTML is never passed through: it is shown as text.
        const text = node.value.trim();
        if (text) out.blocks.push({ type: 'paragraph', text: escapeMarkdown(text) });
        out.warnings.push(`markdown line ${line(node)}: raw HTML is escaped and shown as text`);
        break;
      }
      default:
        break; // definitions and anything else carry no visible content of their own
    }
  }
  return out;

  /** A list's items in document order, nested lists and quotes inside items flattened into it. */
  function listItems(list: Extract<RootContent, { type: 'list' }>): string[] {
    const items: string[] = [];
    const stack: Nodes[] = [...list.children].reverse();
    while (stack.length) {
      const node = stack.pop()!;
      if (node.type === 'listItem' || node.type === 'list' || node.type === 'blockquote') {
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
        continue;
      }
      const text = node.type === 'paragraph' || node.type === 'heading' ? sourceOf(markdown, node).trim() : escapeMarkdown(plainOf(node).trim());
      if (text) items.push(text);
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
        if (!m)
          out.errors.push(`${at}: a button directive is ::button[Label](https://url) (a URL containing a parenthesis must encode it as %28 / %29)`);
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

export type InlineOut = { html: string; text: string; warnings: string[]; errors: string[] };
export type InlineStyle = { link: string };

const SAFE_SCHEMES = /^(https?:|mailto:|tel:)/i;

type Rendered = { html: string; text: string };
/** A node being rendered: block nodes lay out their children, inline nodes format theirs. */
type Frame = { node: Nodes; inline: boolean; next: number; parts: Rendered[] };

const join = (parts: Rendered[], html = '', text = '') => ({ html: parts.map((p) => p.html).join(html), text: parts.map((p) => p.text).join(text) });

/**
 * Inline markdown (a paragraph's, a heading's, a list item's text) as email
 * HTML and plain text. Raw HTML is escaped; links with any scheme other than
 * http(s), mailto and tel lose their href; non-https links are warned about.
 * The tree is walked with a stack of its own: nesting depth never reaches the
 * call stack.
 */
export function renderInline(markdown: string, style: InlineStyle, where: string): InlineOut {
  const root: Root = fromMarkdown(markdown);
  const warnings: string[] = [];
  const nesting = nestingOf(root);
  if (nesting.depth > CONTENT_LIMITS.depth)
    return { html: '', text: '', warnings, errors: [`${where}: ${nestingMessage(nesting.depth, nesting.line)}`] };

  /** What a node renders to when it needs none of its children rendered first, else null. */
  const leaf = (node: Nodes, inline: boolean): Rendered | null => {
    if (!inline) {
      if (node.type === 'code') return { html: `<code>${escapeHtml(node.value)}</code>`, text: node.value };
      if (node.type === 'thematicBreak') return { html: '', text: '' };
      if (node.type === 'html') return { html: escapeHtml(node.value), text: node.value };
      if ('children' in node) return null;
      return { html: '', text: 'value' in node ? String(node.value) : '' };
    }
    switch (node.type) {
      case 'text':
        return { html: escapeHtml(node.value), text: node.value };
      case 'emphasis':
      case 'strong':
      case 'delete':
      case 'link':
        return null;
      case 'inlineCode':
        return { html: `<code style="font-family:monospace;">${escapeHtml(node.value)}</code>`, text: node.value };
      case 'break':
        return { html: '<br>', text: '\n' };
      case 'html':
        return { html: escapeHtml(node.value), text: node.value };
      case 'image': {
        if (!/^https?:/i.test(node.url)) {
          warnings.push(`${where}: image "${node.url.slice(0, 100)}" has no http(s) address and is left out`);
          return { html: escapeHtml(node.alt ?? ''), text: node.alt ?? '' };
        }
        if (!node.alt) warnings.push(`${where}: image ${node.url.slice(0, 100)} has no alt text`);
        if (/^http:/i.test(node.url)) warnings.push(`${where}: image ${node.url.slice(0, 100)} is not https`);
        return {
          html: `<img src="${escapeHtml(node.url)}" alt="${escapeHtml(node.alt ?? '')}" style="max-width:100%;height:auto;border:0;">`,
          text: node.alt ?? '',
        };
      }
      default: {
        // references without definitions and the like: their literal text
        const raw = plainOf(node);
        return { html: escapeHtml(raw), text: raw };
      }
    }
  };

  /** A node's rendering from its children's. */
  const combine = ({ node, inline, parts }: Frame): Rendered => {
    if (node.type === 'root') return join(parts, '<br><br>', '\n\n');
    if (!inline) return isContainer(node) ? join(parts, '<br>', '\n') : join(parts);
    const r = join(parts);
    switch (node.type) {
      case 'emphasis':
        return { html: `<em>${r.html}</em>`, text: r.text };
      case 'strong':
        return { html: `<strong>${r.html}</strong>`, text: r.text };
      case 'delete':
        return { html: `<s>${r.html}</s>`, text: r.text };
      case 'link': {
        if (!SAFE_SCHEMES.test(node.url)) {
          warnings.push(`${where}: link "${node.url.slice(0, 100)}" has no http(s), mailto or tel address and is shown as text`);
          return r;
        }
        if (/^http:/i.test(node.url)) warnings.push(`${where}: link ${node.url.slice(0, 100)} is not https`);
        return {
          html: `<a href="${escapeHtml(node.url)}" style="${style.link}" target="_blank">${r.html || escapeHtml(node.url)}</a>`,
          text: r.text && r.text !== node.url ? `${r.text} (${node.url})` : node.url,
        };
      }
      default:
        return r;
    }
  };

  // A block container's children are blocks; a paragraph's or a heading's, and those of inline nodes, are inline.
  const stack: Frame[] = [{ node: root, inline: false, next: 0, parts: [] }];
  for (;;) {
    const frame = stack[stack.length - 1];
    const children = 'children' in frame.node ? (frame.node.children as Nodes[]) : [];
    if (frame.next < children.length) {
      const child = children[frame.next++];
      const inline = frame.inline || (frame.node.type !== 'root' && !isContainer(frame.node));
      const done = leaf(child, inline);
      if (done) frame.parts.push(done);
      else stack.push({ node: child, inline, next: 0, parts: [] });
      continue;
    }
    stack.pop();
    const rendered = combine(frame);
    if (!stack.length) return { ...rendered, warnings, errors: [] };
    stack[stack.length - 1].parts.push(rendered);
  }
}

const PHRASING = new Set([
  'text',
  'emphasis',
  'strong',
  'delete',
  'inlineCode',
  'break',
  'link',
  'image',
  'linkReference',
  'imageReference',
  'html',
  'footnoteReference',
]);
/** A node whose children are blocks (a quote, a list, a list item): rendered one per line. */
const isContainer = (node: Nodes) => 'children' in node && node.type !== 'paragraph' && node.type !== 'heading' && !PHRASING.has(node.type);
