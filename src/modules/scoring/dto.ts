import { z } from '@hono/zod-openapi';

const SignalContribution = z
  .object({
    signal: z.string().openapi({ example: 'email.clicked' }),
    points: z.number().openapi({ description: 'Its rule points, decayed to `computed_at` (hundredths)', example: 2.84 }),
    occurred_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('ScoreSignalContribution');

const FieldContribution = z
  .object({
    field: z.string().openapi({ example: 'lifecycle_stage' }),
    equals: z.union([z.string(), z.number(), z.boolean()]).openapi({ example: 'customer' }),
    points: z.number().openapi({ example: 20 }),
  })
  .openapi('ScoreFieldContribution');

export const ContactScore = z
  .object({
    lead_score: z.number().nullable().openapi({ description: 'The stored score (0..100 while the engine writes it)', example: 42 }),
    score_band: z.enum(['cold', 'warm', 'hot']).nullable().openapi({ description: '`cold` < 30, `warm` 30..69, `hot` >= 70; null without a score' }),
    computed_at: z.string().nullable().openapi({ format: 'date-time', description: 'When the engine last scored the contact; null if it never did' }),
    contributions: z
      .array(z.union([SignalContribution, FieldContribution]))
      .openapi({ description: 'The 20 contributions that weigh most (by absolute points) as of `computed_at`; empty while scoring is off' }),
  })
  .openapi('ContactScore');
