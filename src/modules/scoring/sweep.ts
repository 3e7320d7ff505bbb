import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { Db } from '../../platform/d1/db';
import { readAll } from '../../platform/d1/operation';
import { wroteFor } from '../../platform/d1/floors';
import { settledHere } from '../../platform/d1/workspace-moves/settled';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import type { SweepResult } from '../../platform/manifest';
import { CONTACTS_PER_PASS, scoreContacts, scorePending } from './recompute';
import { resumeStalledRescores } from './rescore';
import { contactScores, scoreSignals } from './schema';
import { configOf, readConfig } from './store';

/** Contacts whose decay one pass applies, and workspaces with uncounted signals it scores, per shard. */
const DECAY_PER_PASS = 500;
const PENDING_WORKSPACES_PER_PASS = 10;

/**
 * The `lead-scoring` sweep, every cron tick on each shard, in bounded chunks: decay (each contact with a decaying
 * signal is scored again a day after its last scoring, so decay applies daily, spread over the day), signals no
 * queue message counted (a lost hand-off), and rescoring walks whose message was lost.
 */
export async function scoringSweep(env: Bindings, db: Db): Promise<SweepResult> {
  const now = Date.now();
  const decayed = await applyDecay(db, now);
  const pending = await rawAll<{ workspace_id: string }>(
    db,
    sql`SELECT DISTINCT workspace_id FROM ${scoreSignals} INDEXED BY score_signals_pending WHERE pending = 1 AND ${settledHere(scoreSignals.workspace_id)} LIMIT ${PENDING_WORKSPACES_PER_PASS}`,
  );
  let caughtUp = 0;
  for (const { workspace_id } of pending) {
    caughtUp += (await scorePending(db, workspace_id)).scored;
    wroteFor(db, [workspace_id]);
  }
  const resumed = await resumeStalledRescores(env, db, now);
  return { decayed, caught_up: caughtUp, rescores_resumed: resumed };
}

async function applyDecay(db: Db, now: number): Promise<number> {
  const due = await rawAll<{ workspace_id: string; contact_id: string }>(
    db,
    sql`SELECT workspace_id, contact_id FROM ${contactScores} INDEXED BY contact_scores_decay_due
      WHERE decay_due_at IS NOT NULL AND decay_due_at <= ${new Date(now).toISOString()} AND ${settledHere(contactScores.workspace_id)} ORDER BY decay_due_at LIMIT ${DECAY_PER_PASS}`,
  );
  const byWorkspace = new Map<string, string[]>();
  for (const d of due) byWorkspace.set(d.workspace_id, [...(byWorkspace.get(d.workspace_id) ?? []), d.contact_id]);
  let decayed = 0;
  for (const [workspaceId, ids] of byWorkspace) {
    const read = await readAll(db, { config: readConfig(db, workspaceId) });
    const config = configOf(read.config[0]);
    if (!config?.enabled) {
      // A workspace that stopped scoring keeps its scores as they are: nothing more is due.
      await rawRun(db, sql`UPDATE ${contactScores} SET decay_due_at = NULL WHERE workspace_id = ${workspaceId} AND decay_due_at IS NOT NULL`);
      continue;
    }
    for (let i = 0; i < ids.length; i += CONTACTS_PER_PASS)
      decayed += await scoreContacts(db, workspaceId, config, ids.slice(i, i + CONTACTS_PER_PASS), now);
    wroteFor(db, [workspaceId]);
  }
  return decayed;
}
