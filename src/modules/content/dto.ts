import { z } from '@hono/zod-openapi';

/**
 * OpenAPI shapes of the content contract, for the routes that take content
 * (email campaigns, newsletter issues). `content` is accepted as any object
 * and checked by the compiler, so a malformed source answers 400
 * `invalid_content` (domain envelope) rather than a framework-shape 400.
 */
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export const ContentInput = z.custom<Record<string, unknown>>(isObject, { message: 'must be an object' }).openapi('ContentInput', {
  type: 'object',
  additionalProperties: false,
  properties: {
    markdown: {
      type: 'string',
      description:
        'CommonMark subset with `::button[Label](https://url)` and `::snippet[name-or-uuid]` directive lines and `[[field : fallback | modifier(arg)]]` tokens; raw HTML is escaped',
    },
    blocks: {
      type: 'array',
      items: { type: 'object', additionalProperties: true },
      description: 'The block document: `heading`, `paragraph`, `button`, `bullets`, `spacer`, `image`, `divider`, `snippet`',
    },
    design_json: {
      type: 'object',
      additionalProperties: true,
      description: 'A stored block document `{blocks, direction?}` (the `design_json` a record answers with): replaying it reproduces the same HTML',
    },
    direction: { type: 'string', enum: ['ltr', 'rtl'], description: 'Default `ltr`' },
  },
  // Exactly one source: the document says it as the server checks it.
  oneOf: [{ required: ['markdown'] }, { required: ['blocks'] }, { required: ['design_json'] }],
  description:
    'Exactly one of `markdown`, `blocks`, `design_json`. All three compile to one model, the block document; the record stores it as `design_json`, and sending it back is accepted and renders the same HTML. At most 512,000 characters and 1,000 blocks, whatever the source; block quotes and lists nest at most 16 levels; markdown past its cost limits (lines, list items, inline markup) is refused. Zero or several sources, a malformed source, an invalid direction or content past a limit: 400 `invalid_content`; a snippet reference that matches nothing: 400 `unknown_snippet`.',
});

export const CompileResult = z
  .object({
    ok: z.boolean(),
    errors: z
      .array(z.object({ code: z.string(), message: z.string() }))
      .openapi({ description: 'Always empty on an accepted write (errors reject it)' }),
    warnings: z.array(z.string()).openapi({ description: 'Unknown tokens or modifiers, images without alt text, non-https links' }),
  })
  .openapi('CompileResult');

/** The content columns a record with content answers with on a single read. */
export const contentColumns = {
  design_json: z
    .record(z.string(), z.unknown())
    .nullable()
    .openapi({ description: 'The block document `{blocks, direction}` the content compiled from' }),
  compiled_html: z.string().nullable().openapi({ description: 'Email-safe HTML with `[[tokens]]` kept for the per-recipient render' }),
  compiled_styles: z.string().nullable(),
  plain_text: z.string().nullable(),
};
