import { settledHere } from '../../platform/d1/workspace-moves/settled';
import { readAll } from '../../platform/d1/operation';
import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { type Db, nowIso } from '../../platform/d1/db';
import { rawAll } from '../../platform/d1/raw-query';
import { workspaceDb } from '../../platform/d1/shards';
import { contactIdsAfter } from '../contacts';
import { CONTACTS_PER_PASS, scoreContacts } from './recompute';
import { scoringConfigs } from './schema';
import { configOf, readConfig } from './store';

export const RESCORE_KIND = 'scoring-rescore';
/** Contacts one rescoring message scores before it hands the walk on. */
export const RESCORE_PAGE = 500;

export type RescoreMessage = { kind: typeof RESCORE_KIND; workspace_id: string; generation: number; after: string };

export const sendRescore = (env: Bindings, workspaceId: string, generation: number, after: string) =>
  env.EVENTS_QUEUE.send({ kind: RESCORE_KIND, workspace_id: workspaceId, generation, after } satisfies RescoreMessage);

/**
 * One page of a rescoring walk. The message names the walk (`generation`) and where it stands (`after`); only the
 * message matching the stored cursor runs, and moving the cursor is guarded on it, so one message per workspace is
 * ever in flight: a replay, or the walk of rules since replaced, does nothing.
 */
export async function rescorePage(env: Bindings, message: RescoreMessage): Promise<void> {
  const db = await workspaceDb(env, message.workspace_id);
  if (!db) return;
  const read = await readAll(db, { config: readConfig(db, message.workspace_id) });
  const config = configOf(read.config[0]);
  if (!config?.enabled || config.generation !== message.generation || config.after !== message.after) return;
  const page = await contactIdsAfter(db, message.workspace_id, message.after, RESCORE_PAGE);
  for (let i = 0; i < page.ids.length; i += CONTACTS_PER_PASS) {
    await scoreContacts(db, message.workspace_id, config, page.ids.slice(i, i + CONTACTS_PER_PASS));
  }
  const next = page.ids.length < RESCORE_PAGE ? null : page.next;
  if ((await moveCursor(db, message, next)) && next !== null) await sendRescore(env, message.workspace_id, message.generation, next);
}

async function moveCursor(db: Db, message: RescoreMessage, next: string | null): Promise<boolean> {
  const moved = await rawAll(
    db,
    sql`UPDATE ${scoringConfigs} SET rescore_after = ${next}, rescore_touched_at = ${nowIso()}
      WHERE workspace_id = ${message.workspace_id} AND rescore_generation = ${message.generation} AND rescore_after = ${message.after}
      RETURNING workspace_id`,
  );
  return moved.length > 0;
}

/** A walk untouched this long lost its message (a failed send): the scoring sweep sends it again. */
export const STALLED_MS = 60_000;

/** Sends again the message of each walk on the shard that stalled (a few per pass); the guarded touch makes one sweep the sender. */
export async function resumeStalledRescores(env: Bindings, db: Db, now: number): Promise<number> {
  const before = new Date(now - STALLED_MS).toISOString();
  const stalled = await rawAll<{ workspace_id: string; rescore_generation: number; rescore_after: string; rescore_touched_at: string | null }>(
    db,
    sql`SELECT workspace_id, rescore_generation, rescore_after, rescore_touched_at FROM ${scoringConfigs}
      WHERE enabled = 1 AND rescore_after IS NOT NULL AND coalesce(rescore_touched_at, '') < ${before}
        AND ${settledHere(scoringConfigs.workspace_id)} LIMIT 20`,
  );
  let resumed = 0;
  for (const walk of stalled) {
    const touched = await rawAll(
      db,
      sql`UPDATE ${scoringConfigs} SET rescore_touched_at = ${new Date(now).toISOString()}
        WHERE workspace_id = ${walk.workspace_id} AND rescore_generation = ${walk.rescore_generation} AND rescore_after = ${walk.rescore_after}
          AND rescore_touched_at IS ${walk.rescore_touched_at} RETURNING workspace_id`,
    );
    if (touched.length === 0) continue;
    await sendRescore(env, walk.workspace_id, walk.rescore_generation, walk.rescore_after);
    resumed++;
  }
  return resumed;
}
