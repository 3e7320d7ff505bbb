import { z } from '@hono/zod-openapi';

import { boundedJsonObject, type JsonBounds } from '../../../platform/json-bounds';

const EVIDENCE_BOUNDS: JsonBounds = { maxDepth: 5, maxKeys: 100, maxBytes: 2048 };

export const ConsentWrite = z
  .object({
    state: z.enum(['subscribed', 'unsubscribed']),
    source: z.string().trim().min(1).max(100).optional().openapi({ description: 'Provenance; default `api`' }),
    basis: z.string().max(100).optional().openapi({ description: 'Legal basis' }),
    evidence: boundedJsonObject(EVIDENCE_BOUNDS, 'Stored on the consent-ledger row').optional(),
  })
  .strict()
  .openapi('ConsentWrite');

const channel = z.object({
  consent_state: z.enum(['subscribed', 'unsubscribed', 'unknown']),
  deliverability: z.string(),
  updated_at: z.string().nullable(),
});

export const Consent = z
  .object({
    contact_id: z.string().uuid(),
    whatsapp: channel,
    email: channel.extend({
      suppressed: z.boolean().openapi({ description: 'Send-time verdict: suppression list, blacklist, complaint or bouncing deliverability' }),
    }),
  })
  .openapi('Consent');
