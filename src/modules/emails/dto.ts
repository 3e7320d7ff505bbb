import { z } from '@hono/zod-openapi';
import { uuid, uuidOut } from '../../platform/validation';
import { headerText } from './header-safety';
import { HEADER_VALUE_MAX, HTML_MAX_BYTES, METADATA_MAX_BYTES, TEXT_MAX_BYTES, utf8Bytes } from './content';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const object = (description: string) =>
  z.custom<Record<string, unknown>>(isObject, { message: 'must be an object' }).openapi({ type: 'object', additionalProperties: true, description });

/*
 * Shape violations (types, lengths, sizes, unknown properties) answer the
 * standard 400; what docs/email.md names `validation_failed` (neither html nor
 * text, a disallowed or invalid header, metadata over 2048 bytes) and the 422
 * for a bad recipient are checked by the send path, in the domain envelope.
 */
export const EmailSend = z
  .object({
    to: z.string().openapi({
      format: 'email',
      minLength: 1,
      maxLength: 320,
      description: 'Trimmed and lower-cased; not a valid address: 422 `invalid_recipient`',
    }),
    subject: headerText(z.string().min(1).max(998), 'subject').openapi({
      description: 'One line: line breaks and other control characters answer 400',
    }),
    html: z
      .string()
      .refine((s) => utf8Bytes(s) <= HTML_MAX_BYTES, { message: `html must be at most ${HTML_MAX_BYTES} bytes` })
      .optional()
      .openapi({ description: 'At most 500 KB (UTF-8); delivered verbatim. One of html/text is required (400 `validation_failed`)' }),
    text: z
      .string()
      .refine((s) => utf8Bytes(s) <= TEXT_MAX_BYTES, { message: `text must be at most ${TEXT_MAX_BYTES} bytes` })
      .optional()
      .openapi({
        description:
          'At most 100 KB (UTF-8). A missing part is derived: text becomes escaped HTML with line breaks kept, html a plain-text rendering',
      }),
    idempotency_key: z.string().min(1).max(255).openapi({
      description:
        'Unique per workspace: the first request sends, later ones replay its answer. Required even with an `Idempotency-Key` header, which must then be the same key',
    }),
    sender_profile_id: uuid('sender_profile_id').optional().openapi({
      description: "Default: the workspace's default verified sender profile; another workspace's id answers 404 `sender_profile_not_found`",
    }),
    reply_to: z
      .string()
      .trim()
      .max(320)
      .pipe(z.email())
      .optional()
      .openapi({ format: 'email', description: "Default: the sender profile's `reply_to`" }),
    headers: object(
      `Only \`List-Unsubscribe\` and \`List-Unsubscribe-Post\` (any case); string values of at most ${HEADER_VALUE_MAX} characters without control characters. Anything else: 400 \`validation_failed\``,
    ).optional(),
    metadata: object(
      `At most ${METADATA_MAX_BYTES} bytes serialized (else 400 \`validation_failed\`); echoed verbatim as \`data.metadata\` in email events`,
    ).optional(),
    tracking: z.object({ opens: z.boolean().optional(), clicks: z.boolean().optional() }).strict().optional().openapi({
      description:
        '`opens` appends a 1x1 pixel to the HTML part, `clicks` wraps absolute http(s) links in a first-party redirect; both default false and are not kept across replays',
    }),
  })
  .strict()
  .openapi('EmailSend');

export const EmailSendRecord = z
  .object({
    id: uuidOut().openapi({ description: 'The send id (`data.send_id` in email events)' }),
    status: z.enum(['sent', 'suppressed']).openapi({ description: 'Check this, not only the HTTP status: a suppressed recipient answers 2xx' }),
    duplicate: z.boolean(),
    to: z.string(),
    idempotency_key: z.string(),
    provider_message_id: z.string().nullable().openapi({ description: 'Null when suppressed' }),
    reason: z.enum(['suppressed']).nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('EmailSendRecord');
