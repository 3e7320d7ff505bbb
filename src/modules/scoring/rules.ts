import { z } from '@hono/zod-openapi';
import { SCORED_FIELDS } from '../contacts';
import { SIGNALS, type Signal } from '../../platform/signals';

export const MAX_RULES = 50;
const CUSTOM_FIELD = /^custom_fields\.(.{1,100})$/s;

export type SignalRule = { signal: Signal; points: number };
export type FieldRule = { field: string; equals: string | number | boolean; points: number };
export type Rule = SignalRule | FieldRule;
export const isSignalRule = (rule: Rule): rule is SignalRule => 'signal' in rule;

/** What a workspace gets when scoring is switched on without rules of its own: engagement up, disengagement down. */
export const DEFAULT_RULES: Rule[] = [
  { signal: 'email.opened', points: 1 },
  { signal: 'email.clicked', points: 3 },
  { signal: 'email.bounced', points: -5 },
  { signal: 'email.unsubscribed', points: -10 },
  { signal: 'form.submitted', points: 10 },
  { signal: 'booking.created', points: 15 },
  { signal: 'booking.cancelled', points: -5 },
  { signal: 'event.attended', points: 10 },
  { signal: 'message.received', points: 5 },
  { signal: 'payment.completed', points: 20 },
  { signal: 'order.paid', points: 20 },
  { signal: 'deal.won', points: 30 },
  { signal: 'deal.lost', points: -10 },
];
export const DEFAULT_HALF_LIFE_DAYS = 30;

const points = z.number().int().min(-100).max(100).openapi({ description: 'Integer -100..100', example: 10 });
const known = (values: readonly string[]) => values.join(', ');

const signalRule = z
  .object({
    signal: z.string().openapi({ enum: [...SIGNALS], example: 'email.clicked' }),
    points,
  })
  .strict();

const fieldRule = z
  .object({
    field: z
      .string()
      .openapi({ description: 'A contact field (`lifecycle_stage`, `country`, ...) or `custom_fields.<key>`', example: 'lifecycle_stage' }),
    equals: z
      .union([z.string().max(1000), z.number(), z.boolean()])
      .openapi({ description: 'The value the field must hold (compared exactly)', example: 'customer' }),
    points,
  })
  .strict();

/** A field a rule may name: a scalar contact field or a top-level custom field. */
export const isScoredField = (field: string) => SCORED_FIELDS.includes(field) || CUSTOM_FIELD.test(field);

/** The rules of a configuration: 1 to 50, each signal and each field value at most once; unknown names are refused by name. */
export const RulesInput = z
  .array(z.union([signalRule, fieldRule]))
  .min(1)
  .max(MAX_RULES)
  .superRefine((rules, ctx) => {
    const seen = new Set<string>();
    rules.forEach((rule, i) => {
      if ('signal' in rule && !(SIGNALS as readonly string[]).includes(rule.signal)) {
        ctx.addIssue({ code: 'custom', path: [i, 'signal'], message: `unknown signal "${rule.signal}" (known: ${known(SIGNALS)})` });
      }
      if ('field' in rule && !isScoredField(rule.field)) {
        ctx.addIssue({
          code: 'custom',
          path: [i, 'field'],
          message: `unknown field "${rule.field}" (a contact field such as lifecycle_stage, or custom_fields.<key>)`,
        });
      }
      const key = 'signal' in rule ? `signal ${rule.signal}` : `field ${rule.field} = ${JSON.stringify(rule.equals)}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [i], message: `${key} has a rule already` });
      seen.add(key);
    });
  })
  .openapi({ description: 'Signal rules `{signal, points}` and field rules `{field, equals, points}`, 1 to 50' });

export const HalfLifeInput = z
  .number()
  .int()
  .min(1)
  .max(365)
  .nullable()
  .openapi({ description: 'Days for a signal to lose half its points; null: signals never decay' });

/** A field rule's value on a contact row: a scalar column, or a custom field (stored as JSON text). */
export function fieldValue(row: Record<string, unknown>, field: string): unknown {
  const custom = CUSTOM_FIELD.exec(field);
  if (!custom) return row[field] ?? null;
  const fields =
    typeof row.custom_fields === 'string'
      ? (JSON.parse(row.custom_fields) as Record<string, unknown>)
      : (row.custom_fields as Record<string, unknown>);
  return fields && Object.hasOwn(fields, custom[1]) ? fields[custom[1]] : null;
}
