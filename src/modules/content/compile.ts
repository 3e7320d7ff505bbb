import { blockSchema, designJsonSchema, DIRECTIONS, type Block, type BlockDocument, type Direction } from './blocks';
import { fromHtml } from 'hast-util-from-html';
import { toText } from 'hast-util-to-text';
import {
  BLOCK_TEXTS,
  CONTENT_LIMITS,
  costProblems,
  markupOf,
  measureMarkdown,
  nestingMessage,
  WITH_SNIPPETS,
  type MarkdownCost,
  type Subject,
} from './cost';
import { escapeMarkdown, markdownToBlocks, renderInline } from './markdown';
import { escapeHtml, tokenWarnings } from './tokens';

/**
 * The content compiler, shared by email campaigns and newsletter issues: pure
 * (no I/O), `content` in, the stored columns and the `compile` envelope out.
 * All three sources meet in the block document; `design_json` is the block
 * document the HTML was rendered from.
 */
export const MAX_CONTENT_CHARS = 512_000;

export type Snippet = { id: string; name: string; markdown: string | null; html: string | null };
export type CompileIssue = { code: 'invalid_content' | 'unknown_snippet'; message: string };
export type CompileEnvelope = { ok: boolean; errors: CompileIssue[]; warnings: string[] };
export type Compiled = {
  design_json: BlockDocument;
  compiled_html: string;
  compiled_styles: string;
  plain_text: string;
  compile: CompileEnvelope;
};
export type CompileOptions = {
  /** The workspace's snippets, resolved by name (case-insensitive) or id. */
  snippets?: Snippet[];
  /** The inbox preview line, hidden at the top of the body (tokens allowed). */
  preheader?: string | null;
  /** The document title (the subject, tokens allowed). */
  title?: string | null;
};

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";
const COLOR = '#1f2937';
const ACCENT = '#2563eb';
const S = {
  text: `${FONT}font-size:16px;line-height:1.6;color:${COLOR};margin:0;`,
  h: [
    `${FONT}font-size:28px;line-height:1.25;font-weight:700;color:#111827;margin:0;`,
    `${FONT}font-size:22px;line-height:1.3;font-weight:700;color:#111827;margin:0;`,
    `${FONT}font-size:18px;line-height:1.35;font-weight:700;color:#111827;margin:0;`,
  ],
  link: `color:${ACCENT};text-decoration:underline;`,
  button: `${FONT}display:inline-block;padding:12px 24px;font-size:16px;font-weight:600;line-height:1.2;color:#ffffff;background-color:${ACCENT};border-radius:6px;text-decoration:none;`,
  footer: `${FONT}font-size:12px;line-height:1.5;color:#6b7280;margin:0;`,
};

/** Styles for clients that honour a `<style>` block; everything essential is inline as well. */
export const COMPILED_STYLES =
  'body{margin:0;padding:0;-webkit-text-size-adjust:100%;}table{border-collapse:collapse;}img{border:0;outline:none;text-decoration:none;}@media only screen and (max-width:620px){.container{width:100% !important;}.pad{padding-left:16px !important;padding-right:16px !important;}}';

/** The email's last row: why the recipient gets it, and the unsubscribe link (the web rendering drops it). */
export const subscriberFooter = (align: 'left' | 'right') =>
  `<tr><td class="pad" style="padding:24px 40px 32px;text-align:${align};" align="${align}"><p style="${S.footer}">You are receiving this email because you subscribed. <a href="[[unsubscribe_url]]" style="color:#6b7280;text-decoration:underline;" target="_blank">Unsubscribe</a></p></td></tr>`;

const invalid = (message: string): CompileIssue => ({ code: 'invalid_content', message });
const fail = (errors: CompileIssue[], warnings: string[] = []) => ({ ok: false as const, errors, warnings });

const zodIssues = (prefix: string, error: { issues: { path: PropertyKey[]; message: string }[] }) =>
  error.issues.slice(0, 10).map((i) => invalid(`${prefix}${i.path.length ? `.${i.path.map(String).join('.')}` : ''}: ${i.message}`));

const SOURCES = ['markdown', 'blocks', 'design_json'] as const;

/** The `content` object checked and turned into the block document, or the errors that reject it. */
export function toBlockDocument(
  content: unknown,
  snippets: Snippet[] = [],
): { ok: true; doc: BlockDocument; warnings: string[] } | ReturnType<typeof fail> {
  if (content === null || typeof content !== 'object' || Array.isArray(content))
    return fail([invalid('content must be an object with exactly one of markdown, blocks or design_json')]);
  const c = content as Record<string, unknown>;
  let size: number;
  try {
    size = JSON.stringify(c).length;
  } catch {
    return fail([invalid('content is not serializable')]);
  }
  if (size > MAX_CONTENT_CHARS) return fail([invalid(`content is over ${MAX_CONTENT_CHARS.toLocaleString('en-US')} characters`)]);
  const unknown = Object.keys(c).filter((k) => k !== 'direction' && !(SOURCES as readonly string[]).includes(k));
  if (unknown.length) return fail([invalid(`content has unknown field(s): ${unknown.join(', ')}`)]);
  const present = SOURCES.filter((s) => c[s] !== undefined && c[s] !== null);
  if (present.length !== 1) {
    return fail([
      invalid(
        present.length
          ? `content must have exactly one source; got ${present.join(' and ')}`
          : 'content must have exactly one of markdown, blocks or design_json',
      ),
    ]);
  }
  if (c.direction !== undefined && c.direction !== null && !(DIRECTIONS as readonly unknown[]).includes(c.direction)) {
    return fail([invalid('content.direction must be ltr or rtl')]);
  }
  let blocks: Block[];
  let direction = (c.direction as Direction | undefined) ?? undefined;
  const warnings: string[] = [];
  const source = present[0];
  if (source === 'markdown') {
    if (typeof c.markdown !== 'string' || !c.markdown.trim()) return fail([invalid('content.markdown must be a non-empty string')]);
    const md = markdownToBlocks(c.markdown, { allowSnippets: true, subject: 'content.markdown' });
    if (md.errors.length) return fail(md.errors.map(invalid), md.warnings);
    warnings.push(...md.warnings);
    blocks = md.blocks;
    if (blocks.length > CONTENT_LIMITS.blocks) return fail([invalid(tooManyBlocks(blocks.length))], warnings);
    // What a record stores must be accepted again as design_json: the blocks markdown makes meet the same schema.
    const errors = blocks.flatMap((b, i) => {
      const parsed = blockSchema.safeParse(b);
      return parsed.success ? [] : zodIssues(`content.markdown: block ${i + 1} (${b.type})`, parsed.error);
    });
    if (errors.length) return fail(errors.slice(0, 10), warnings);
  } else if (source === 'blocks') {
    if (!Array.isArray(c.blocks)) return fail([invalid('content.blocks must be an array of blocks')]);
    if (c.blocks.length > CONTENT_LIMITS.blocks) return fail([invalid(tooManyBlocks(c.blocks.length))]);
    const parsed = c.blocks.map((b) => blockSchema.safeParse(b));
    const errors = parsed.flatMap((p, i) => (p.success ? [] : zodIssues(`content.blocks.${i}`, p.error)));
    if (errors.length) return fail(errors);
    blocks = parsed.map((p) => p.data!);
  } else {
    const sent = (c.design_json as { blocks?: unknown } | null)?.blocks;
    if (Array.isArray(sent) && sent.length > CONTENT_LIMITS.blocks) return fail([invalid(tooManyBlocks(sent.length))]);
    const parsed = designJsonSchema.safeParse(c.design_json);
    if (!parsed.success) return fail(zodIssues('content.design_json', parsed.error));
    blocks = parsed.data.blocks;
    direction ??= parsed.data.direction;
  }
  if (blocks.length === 0) return fail([invalid('content has no blocks')]);
  const costs = textProblems(blocks);
  if (costs.length) return fail(costs.map(invalid), warnings);
  const doc: BlockDocument = { blocks, direction: direction ?? 'ltr' };
  if (JSON.stringify({ design_json: doc }).length > MAX_CONTENT_CHARS) {
    return fail([invalid(`content's block document (design_json) is over ${MAX_CONTENT_CHARS.toLocaleString('en-US')} characters`)], warnings);
  }
  const errors: CompileIssue[] = [];
  blocks.forEach((b, i) => {
    const where = `block ${i + 1} (${b.type})`;
    if (b.type === 'button' && !/^https?:\/\/[^\s]+$/i.test(b.url)) errors.push(invalid(`${where}: url must be an http(s) URL`));
    if (b.type === 'image') {
      if (!/^https?:\/\/[^\s]+$/i.test(b.src)) errors.push(invalid(`${where}: src must be an http(s) URL`));
      if (b.href !== undefined && !/^https?:\/\/[^\s]+$/i.test(b.href)) errors.push(invalid(`${where}: href must be an http(s) URL`));
    }
    if (b.type === 'snippet' && !findSnippet(snippets, b.ref)) {
      const names = snippets.map((s) => s.name).sort();
      errors.push({
        code: 'unknown_snippet',
        message: `Unknown snippet "${b.ref}"; available snippets: ${names.length ? names.join(', ') : '(none)'}`,
      });
    }
  });
  if (errors.length)
    return fail(errors.some((e) => e.code === 'invalid_content') ? errors.filter((e) => e.code === 'invalid_content') : errors, warnings);
  const withSnippets = referencedSnippetProblems(blocks, snippets);
  if (withSnippets.length) return fail(withSnippets.map(invalid), warnings);
  return { ok: true, doc, warnings };
}

/**
 * The snippets a document references are compiled into it, so together with its own texts they
 * are held to the content limits: each snippet is within them on its own, and without this a
 * document naming hundreds of distinct maximal snippets would cost hundreds of documents.
 * Their size is checked before any is read, then each is measured once (linear).
 */
function referencedSnippetProblems(blocks: Block[], snippets: Snippet[]): string[] {
  const referenced = new Map<string, Snippet>();
  for (const b of blocks) {
    const s = b.type === 'snippet' ? findSnippet(snippets, b.ref) : undefined;
    if (s) referenced.set(s.id, s);
  }
  if (referenced.size === 0) return [];
  const size = [...referenced.values()].reduce((sum, s) => sum + (s.markdown ?? s.html ?? '').length, 0);
  if (size > MAX_CONTENT_CHARS) {
    return [
      `the snippets content references are ${size.toLocaleString('en-US')} characters together; at most ${MAX_CONTENT_CHARS.toLocaleString('en-US')}`,
    ];
  }
  return textProblems(
    blocks,
    [...referenced.values()].map((s) => s.markdown ?? htmlToText(s.html ?? '')),
    WITH_SNIPPETS,
  );
}

const tooManyBlocks = (count: number) =>
  `content has ${count.toLocaleString('en-US')} blocks; at most ${CONTENT_LIMITS.blocks.toLocaleString('en-US')}`;

/** Every text of the block document parsed as markdown when it is rendered: paragraphs, headings, list items. */
function textsOf(blocks: Block[]): { where: string; text: string }[] {
  return blocks.flatMap((b, i) => {
    const where = `block ${i + 1} (${b.type})`;
    if (b.type === 'heading' || b.type === 'paragraph') return [{ where, text: b.text }];
    if (b.type === 'bullets') return b.items.map((text, j) => ({ where: `${where} item ${j + 1}`, text }));
    return [];
  });
}

/**
 * The cost limits the block document's texts (and the texts of the snippets it
 * references, when given) break, added up over all of them (each is parsed on
 * its own when rendered), whatever the source: a design that compiled once
 * compiles again.
 */
function textProblems(blocks: Block[], snippetSources: string[] = [], subject: Subject = BLOCK_TEXTS): string[] {
  const totals: MarkdownCost = { lines: 0, nestedLines: 0, structures: 0, depth: 0, depthLine: 0, markup: 0 };
  const problems: string[] = [];
  let markupWeight = 0;
  const add = (cost: MarkdownCost, weight: number) => {
    totals.lines += cost.lines;
    totals.nestedLines += cost.nestedLines;
    totals.structures += cost.structures;
    totals.markup += cost.markup;
    markupWeight += weight;
  };
  for (const { where, text } of textsOf(blocks)) {
    const cost = measureMarkdown(text);
    if (cost.depth > CONTENT_LIMITS.depth) problems.push(`${where}: ${nestingMessage(cost.depth, cost.depthLine)}`);
    add(cost, cost.markup * text.length);
  }
  for (const source of snippetSources) {
    const cost = measureMarkdown(source);
    // A snippet refused before it is parsed is left out when rendered (stored before the limits applied): it adds nothing.
    if (cost.depth > CONTENT_LIMITS.depth || costProblems(BLOCK_TEXTS, cost).length) continue;
    add(cost, paragraphWeight(source));
  }
  return [...problems.slice(0, 10), ...costProblems(subject, totals, markupWeight)];
}

/**
 * A markdown source's markup weight as its texts will have it, taking each run of lines between
 * blank lines as one text: linear, and never less than the weight of the texts it splits into.
 */
function paragraphWeight(source: string): number {
  return source.split(/(?:\r\n|\r|\n)[ \t]*(?:\r\n|\r|\n)/).reduce((sum, chunk) => sum + markupOf(chunk) * chunk.length, 0);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function findSnippet(snippets: Snippet[], ref: string): Snippet | undefined {
  const r = ref.trim();
  if (UUID.test(r)) return snippets.find((s) => s.id === r.toLowerCase());
  return snippets.find((s) => s.name.toLowerCase() === r.toLowerCase());
}

type Rendered = { html: string; text: string };
/** What rendering one document shares: its alignment, the workspace's snippets (each rendered once), where warnings and errors go. */
type RenderContext = { align: string; snippets: Snippet[]; warnings: string[]; errors: string[]; rendered: Map<string, Rendered> };

/**
 * Compiles `content`. On errors the result has `compile.ok: false` and the
 * errors (the write is rejected); otherwise the block document, email-safe
 * HTML (table layout, inline styles, a 600 px body, hidden preheader,
 * `dir` on the document and the body table) and plain text, with every
 * `[[token]]` kept for the per-recipient render at send time.
 */
export function compileContent(content: unknown, opts: CompileOptions = {}): Compiled | { compile: CompileEnvelope } {
  const snippets = opts.snippets ?? [];
  const checked = toBlockDocument(content, snippets);
  if (!checked.ok) return { compile: { ok: false, errors: checked.errors, warnings: checked.warnings } };
  const { doc } = checked;
  const warnings = [...checked.warnings];
  const rtl = doc.direction === 'rtl';
  const align = rtl ? 'right' : 'left';
  const rows: string[] = [];
  const texts: string[] = [];
  const ctx: RenderContext = { align, snippets, warnings, errors: [], rendered: new Map() };
  doc.blocks.forEach((b, i) => {
    const r = renderBlock(b, `block ${i + 1} (${b.type})`, ctx);
    if (r.html) rows.push(r.html);
    if (r.text) texts.push(r.text);
  });
  if (ctx.errors.length) return { compile: { ok: false, errors: ctx.errors.slice(0, 10).map(invalid), warnings: dedupe(warnings) } };
  if (opts.preheader) warnings.push(...tokenWarnings(opts.preheader, 'preheader'));
  if (opts.title) warnings.push(...tokenWarnings(opts.title, 'subject'));
  const dir = rtl ? 'rtl' : 'ltr';
  const preheader = opts.preheader
    ? `<div style="display:none;font-size:1px;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;mso-hide:all;">${escapeHtml(opts.preheader)}${'&#847;&zwnj;&nbsp;'.repeat(20)}</div>`
    : '';
  const footer = subscriberFooter(align);
  const html =
    `<!DOCTYPE html><html lang="en" dir="${dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta http-equiv="X-UA-Compatible" content="IE=edge">` +
    `<title>${escapeHtml(opts.title ?? '')}</title><style>${COMPILED_STYLES}</style></head>` +
    `<body style="margin:0;padding:0;background-color:#f3f4f6;" dir="${dir}">${preheader}` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#f3f4f6;"><tr><td align="center" style="padding:24px 8px;">` +
    `<table role="presentation" class="container" width="600" cellpadding="0" cellspacing="0" border="0" dir="${dir}" style="width:600px;max-width:600px;background-color:#ffffff;border-radius:8px;">` +
    `<tr><td style="height:16px;line-height:16px;font-size:0;">&nbsp;</td></tr>${rows.join('')}${footer}</table></td></tr></table></body></html>`;
  const plain = `${texts.join('\n\n')}\n\n--\nUnsubscribe: [[unsubscribe_url]]\n`;
  return {
    design_json: doc,
    compiled_html: html,
    compiled_styles: COMPILED_STYLES,
    plain_text: plain,
    compile: { ok: true, errors: [], warnings: dedupe(warnings) },
  };
}

const dedupe = (xs: string[]) => Array.from(new Set(xs)).slice(0, 100);
const row = (inner: string, align: string, padding = '8px 40px') =>
  `<tr><td class="pad" style="padding:${padding};text-align:${align};" align="${align}">${inner}</td></tr>`;

function renderBlock(b: Block, where: string, ctx: RenderContext): Rendered {
  const { align, warnings } = ctx;
  const inline = (md: string, at = where) => {
    warnings.push(...tokenWarnings(md, at));
    const r = renderInline(md, { link: S.link }, at);
    warnings.push(...r.warnings);
    ctx.errors.push(...r.errors);
    return r;
  };
  switch (b.type) {
    case 'heading': {
      const level = b.level ?? 1;
      const r = inline(b.text);
      return { html: row(`<h${level} style="${S.h[level - 1]}">${r.html}</h${level}>`, align, '16px 40px 8px'), text: r.text };
    }
    case 'paragraph': {
      const r = inline(b.text);
      return { html: row(`<p style="${S.text}">${r.html}</p>`, align), text: r.text };
    }
    case 'bullets': {
      const items = b.items.map((item, j) => inline(item, `${where} item ${j + 1}`));
      const lis = items.map((r) => `<li style="${S.text}margin:0 0 4px;">${r.html}</li>`).join('');
      return {
        html: row(`<ul style="margin:0;padding-${align === 'right' ? 'right' : 'left'}:24px;">${lis}</ul>`, align),
        text: items.map((r) => `- ${r.text}`).join('\n'),
      };
    }
    case 'button': {
      warnings.push(...tokenWarnings(b.label, where));
      if (/^http:/i.test(b.url)) warnings.push(`${where}: link ${b.url.slice(0, 100)} is not https`);
      const link = `<table role="presentation" cellpadding="0" cellspacing="0" border="0" align="${align === 'right' ? 'right' : 'left'}"><tr><td style="border-radius:6px;background-color:${ACCENT};"><a href="${escapeHtml(b.url)}" style="${S.button}" target="_blank">${escapeHtml(b.label)}</a></td></tr></table>`;
      return { html: row(link, align, '12px 40px'), text: `${b.label}: ${b.url}` };
    }
    case 'spacer':
      return { html: `<tr><td style="height:${b.height}px;line-height:${b.height}px;font-size:0;">&nbsp;</td></tr>`, text: '' };
    case 'divider':
      return {
        html: row('<div style="border-top:1px solid #e5e7eb;height:1px;line-height:1px;font-size:0;">&nbsp;</div>', align, '16px 40px'),
        text: '----',
      };
    case 'image': {
      if (!b.alt) warnings.push(`${where}: image ${b.src.slice(0, 100)} has no alt text`);
      for (const u of [b.src, b.href]) if (u && /^http:/i.test(u)) warnings.push(`${where}: link ${u.slice(0, 100)} is not https`);
      const width = b.width ?? 520;
      const img = `<img src="${escapeHtml(b.src)}" alt="${escapeHtml(b.alt ?? '')}" width="${width}" style="display:block;width:100%;max-width:${width}px;height:auto;border:0;">`;
      return {
        html: row(b.href ? `<a href="${escapeHtml(b.href)}" target="_blank">${img}</a>` : img, align),
        text: b.alt ? (b.href ? `${b.alt} (${b.href})` : b.alt) : '',
      };
    }
    case 'snippet': {
      const s = findSnippet(ctx.snippets, b.ref)!;
      return renderSnippet(s, where, ctx);
    }
  }
}

/**
 * A snippet's blocks: its markdown, or the text of its HTML (stored HTML is
 * never passed through unsanitized). `problems`: the cost limits it breaks,
 * which leave it out entirely; a malformed directive line only leaves that
 * line out (a warning).
 */
function snippetBlocks(s: Pick<Snippet, 'markdown' | 'html'>): { blocks: Block[]; problems: string[]; warnings: string[] } {
  const md =
    s.markdown !== null
      ? markdownToBlocks(s.markdown, { allowSnippets: false, subject: 'markdown' })
      : markdownToBlocks(htmlToText(s.html ?? ''), { allowSnippets: false, subject: 'the text of html' });
  if (md.refused) return { blocks: [], problems: md.errors, warnings: md.warnings };
  const { blocks } = md;
  const problems = blocks.length > CONTENT_LIMITS.blocks ? [tooManyBlocks(blocks.length)] : textProblems(blocks);
  return { blocks, problems, warnings: [...md.warnings, ...md.errors.map((e) => `${e} (left out)`)] };
}

/** Why a snippet could never be compiled (the cost limits content has), for the write that creates it. */
export function snippetProblems(s: Pick<Snippet, 'markdown' | 'html'>): string[] {
  return snippetBlocks(s).problems;
}

/**
 * A snippet's content compiled like any other (a snippet cannot include
 * snippets), once per document however often it is referenced; one past the
 * cost limits (stored before they applied) is left out with a warning.
 */
function renderSnippet(s: Snippet, where: string, ctx: RenderContext): Rendered {
  const done = ctx.rendered.get(s.id);
  if (done) return done;
  const { blocks, problems, warnings } = snippetBlocks(s);
  ctx.warnings.push(...warnings.map((w) => `snippet "${s.name}": ${w}`), ...problems.map((p) => `snippet "${s.name}": ${p} (left out)`));
  const inner: RenderContext = { ...ctx, snippets: [], errors: [] };
  const parts = problems.length ? [] : blocks.map((b, i) => renderBlock(b, `${where} snippet "${s.name}" block ${i + 1}`, inner));
  ctx.warnings.push(...inner.errors.map((e) => `snippet "${s.name}": ${e} (left out)`));
  const rendered = inner.errors.length
    ? { html: '', text: '' }
    : {
        html: parts.map((p) => p.html).join(''),
        text: parts
          .map((p) => p.text)
          .filter(Boolean)
          .join('\n\n'),
      };
  ctx.rendered.set(s.id, rendered);
  return rendered;
}

/**
 * Text of a snippet stored as HTML, parsed with a real HTML parser (hast):
 * its text, paragraph by paragraph, escaped so it reads back literally.
 */
function htmlToText(html: string): string {
  const text = toText(fromHtml(html, { fragment: true }));
  return text
    .split(/\n\s*\n/)
    .map((p) => escapeMarkdown(p.trim()))
    .filter(Boolean)
    .join('\n\n');
}

export const isCompiled = (r: Compiled | { compile: CompileEnvelope }): r is Compiled => r.compile.ok;
