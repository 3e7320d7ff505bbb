import { z } from '@hono/zod-openapi';

export const EVIDENCE_MAX_BYTES = 2048;

export const ConsentWrite = z
  .object({
    state: z.enum(['subscribed', 'unsubscribed']),
    source: z.string().trim().min(1).max(100).optional().openapi({ description: 'Provenance; default `api`' }),
    basis: z.string().max(100).optional().openapi({ description: 'Legal basis' }),
    evidence: z
      .record(z.string(), z.unknown())
      .refine((v) => new TextEncoder().encode(JSON.stringify(v)).length <= EVIDENCE_MAX_BYTES, {
        message: `evidence must be at most ${EVIDENCE_MAX_BYTES} bytes serialized`,
      })
      .optional(),
  })
  .strict()
  .openapi('ConsentWrite');

const channel = z.object({ consent_state: z.enum(['subscribed', 'unsubscribed', 'unknown']), deliverability: z.string(), updated_at: z.string().nullable() });

export const Consent = z
  .object({
    contact_id: z.string().uuid(),
    whatsapp: channel,
    email: channel.extend({ suppressed: z.boolean().openapi({ description: 'Send-time verdict: suppression list, blacklist, complaint or bouncing deliverability' }) }),
  })
  .openapi('Consent');
