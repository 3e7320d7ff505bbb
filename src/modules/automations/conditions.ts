import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { rawAll } from '../../platform/d1/raw-query';
import { contactCustomField, contactMatches } from '../contacts';
import type { BranchStep } from './definition';
import { type RunPlan, triggerDataOf } from './run-state';

/** Which arm a branch takes: the contact's filter tested now, or whether a `wait_for` before it got its event. */
export async function branchTaken(
  ctx: ServiceContext,
  plan: RunPlan,
  step: BranchStep,
  received: ReadonlyMap<string, boolean>,
): Promise<'then' | 'else'> {
  if ('received' in step.if) return received.get(step.if.received) ? 'then' : 'else';
  const [row] = await rawAll<{ matches: number }>(ctx.db, sql`SELECT ${contactMatches(ctx.ws.id, plan.contactId, step.if.contact)} AS matches`);
  return row?.matches ? 'then' : 'else';
}

const readPath = (value: unknown, path: string[]): unknown =>
  path.reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), value);

/**
 * The instant a `wait` with `until` waits for, `offset` applied: a field of the trigger event's data, or a
 * custom field of the contact as it is now. Null when it is missing or not an instant (the step is skipped).
 */
export async function waitUntilInstant(
  ctx: ServiceContext,
  plan: RunPlan,
  enrollmentId: string,
  until: string,
  offsetMs: number,
): Promise<number | null> {
  let value: unknown;
  if (until.startsWith('trigger.')) value = readPath(await triggerDataOf(ctx, enrollmentId), until.slice('trigger.'.length).split('.'));
  else {
    const key = until.slice('contact.custom_fields.'.length);
    const [row] = await rawAll<{ value: unknown }>(ctx.db, sql`SELECT ${contactCustomField(ctx.ws.id, plan.contactId, key)} AS value`);
    value = row?.value ?? null;
  }
  if (typeof value !== 'string') return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : at + offsetMs;
}
