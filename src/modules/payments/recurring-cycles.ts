import { cycleDueAt } from '../../platform/calendar';
import type { PaymentRow, RecurringInterval } from './schema';

/** Whether cycle `n`, due at `dueAt`, is within the plan's end conditions. */
export const cycleAllowed = (p: { recurringEndAt: string | null; recurringMaxOccurrences: number | null }, n: number, dueAt: string) =>
  (p.recurringMaxOccurrences === null || n <= p.recurringMaxOccurrences) && (p.recurringEndAt === null || dueAt <= p.recurringEndAt);

/** The next cycle of an active plan, or null when its end conditions allow none (the plan completes). */
export function nextCycle(
  p: Pick<PaymentRow, 'purchaseDate' | 'recurringInterval' | 'recurringCycles' | 'recurringEndAt' | 'recurringMaxOccurrences'>,
  zone: string,
) {
  const n = p.recurringCycles + 1;
  const dueAt = cycleDueAt(p.purchaseDate, p.recurringInterval as RecurringInterval, n, zone);
  return cycleAllowed(p, n, dueAt) ? { n, dueAt } : null;
}
