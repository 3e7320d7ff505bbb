import type { Bindings } from '../env';
import type { Db, Statement } from './d1/db';
import type { RowGuard } from './d1/row-guard';

/** What happens to a contact that lead scoring can weigh (docs/scoring.md), named like the events that carry them. */
export const SIGNALS = [
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.unsubscribed',
  'form.submitted',
  'booking.created',
  'booking.cancelled',
  'event.attended',
  'message.received',
  'payment.completed',
  'order.paid',
  'deal.won',
  'deal.lost',
] as const;
export type Signal = (typeof SIGNALS)[number];

/**
 * Not a signal: a contact's fields changed, so the field rules it matches may have. Recorded like a signal so that the
 * same pass scores the contact again; it weighs nothing and is dropped by that pass.
 */
export const CONTACT_CHANGED = 'contact.changed';
export type RecordedSignal = Signal | typeof CONTACT_CHANGED;

/** The contact a signal happened to: its id, or an identifier it holds (an email's recipient, a phone or email written). */
export type SignalContact = string | { email: string } | { phone: string };

/**
 * What the scoring engine hands the platform (a manifest's `signals`): `record` is the statement that stores one
 * signal inside the batch of the change it comes from, writing nothing unless the workspace scores contacts;
 * `recorded` runs once that batch committed, for the workspaces it may have signalled.
 */
export type SignalHooks = {
  record: (db: Db, workspaceId: string, contact: SignalContact, signal: RecordedSignal, guard?: RowGuard) => Statement;
  recorded: (env: Bindings, workspaceIds: string[]) => Promise<void>;
};

let hooks: SignalHooks | null = null;

/** Called by the composition root only. */
export function wireSignals(provided: SignalHooks | null): void {
  hooks = provided;
}

/** The statements recording `signal` for the contact in the caller's batch: none when no engine is wired. */
export const signalStatements = (db: Db, workspaceId: string, contact: SignalContact, signal: RecordedSignal, guard?: RowGuard): Statement[] =>
  hooks ? [hooks.record(db, workspaceId, contact, signal, guard)] : [];

/** After the batches that recorded signals committed: the engine scores their contacts (a failure is left to its sweep). */
export async function signalsCommitted(env: Bindings, workspaceIds: Iterable<string>): Promise<void> {
  const ids = [...new Set(workspaceIds)];
  if (!hooks || ids.length === 0) return;
  try {
    await hooks.recorded(env, ids);
  } catch (err) {
    console.error('scoring hand-off failed; the scoring sweep picks the signals up', err);
  }
}
