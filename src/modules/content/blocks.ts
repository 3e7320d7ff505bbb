import { z } from 'zod';

/**
 * The block document: the one model behind all three content sources.
 * Markdown parses to it, `blocks` is it, and `design_json` is a stored one
 * (`{blocks, direction?}`), so replaying a record's `design_json` reproduces
 * its HTML.
 */
const text = (max: number) => z.string().min(1).max(max);
const url = z.string().min(1).max(2048);

export const BLOCK_KINDS = ['heading', 'paragraph', 'button', 'bullets', 'spacer', 'image', 'divider', 'snippet'] as const;

export const blockSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('heading'), text: text(1000), level: z.number().int().min(1).max(3).optional() }),
  z.strictObject({ type: z.literal('paragraph'), text: text(100_000) }),
  z.strictObject({ type: z.literal('button'), label: text(200), url }),
  z.strictObject({ type: z.literal('bullets'), items: z.array(text(10_000)).min(1).max(200) }),
  z.strictObject({ type: z.literal('spacer'), height: z.number().int().min(4).max(128) }),
  z.strictObject({
    type: z.literal('image'),
    src: url,
    alt: z.string().max(500).optional(),
    href: url.optional(),
    width: z.number().int().min(1).max(600).optional(),
  }),
  z.strictObject({ type: z.literal('divider') }),
  z.strictObject({ type: z.literal('snippet'), ref: text(200) }),
]);

export type Block = z.infer<typeof blockSchema>;
export const DIRECTIONS = ['ltr', 'rtl'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** The block count is checked before the blocks are parsed, with one message for every source (compile.ts). */
export const designJsonSchema = z.strictObject({ blocks: z.array(blockSchema), direction: z.enum(DIRECTIONS).optional() });

/** The stored block document. */
export type BlockDocument = { blocks: Block[]; direction: Direction };
