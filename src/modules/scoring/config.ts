import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { type Db, nowIso } from '../../platform/d1/db';
import { readAll } from '../../platform/d1/operation';
import { rawAll } from '../../platform/d1/raw-query';
import { controlDb, shardDb } from '../../platform/d1/shards';
import type { Workspace } from '../../platform/workspace';
import { getWorkspace, patchWorkspace } from '../workspaces';
import { sendRescore } from './rescore';
import { DEFAULT_HALF_LIFE_DAYS, DEFAULT_RULES, type Rule } from './rules';
import { scoringConfigs } from './schema';
import { type ConfigRow, readConfig } from './store';

export type ScoringInput = { enabled: boolean; rules?: Rule[]; half_life_days?: number | null };
export type ScoringSettings = { enabled: boolean; rules: Rule[]; half_life_days: number | null; rescoring: boolean; updated_at: string | null };

const settings = (enabled: boolean, row: ConfigRow | undefined): ScoringSettings => ({
  enabled,
  rules: row ? (JSON.parse(row.rules) as Rule[]) : DEFAULT_RULES,
  half_life_days: row ? row.half_life_days : DEFAULT_HALF_LIFE_DAYS,
  rescoring: enabled && !!row?.enabled && row.rescore_after !== null,
  updated_at: row?.updated_at ?? null,
});

const storedConfig = async (db: Db, workspaceId: string) => (await readAll(db, { config: readConfig(db, workspaceId) })).config[0];

/** The workspace's scoring configuration: the switch is its `lead_scoring` flag; rules it never set read as the defaults. */
export async function readScoring(env: Bindings, workspaceId: string): Promise<ScoringSettings> {
  const ws = await getWorkspace(controlDb(env), workspaceId);
  return settings(ws.leadScoring, await storedConfig(shardDb(env, ws.shard, ws.id), ws.id));
}

/**
 * Sets the configuration. Omitted `rules` or `half_life_days` keep what is stored (the defaults when nothing is).
 * The switch is written where it is read first when it turns on (the shard's copy, then the workspace flag) and
 * last when it turns off, so no signal is recorded for a workspace the API reports as not scoring once the call answers.
 */
export async function putScoring(env: Bindings, workspaceId: string, input: ScoringInput): Promise<ScoringSettings> {
  const control = controlDb(env);
  let ws = await getWorkspace(control, workspaceId);
  if (!input.enabled && ws.leadScoring) ws = await patchWorkspace(control, ws.id, { lead_scoring: false });
  const row = await writeConfig(env, ws, input);
  if (input.enabled && !ws.leadScoring) ws = await patchWorkspace(control, ws.id, { lead_scoring: true });
  return settings(ws.leadScoring, row);
}

/** The workspace's `lead_scoring` flag was written through the workspace routes: the engine follows it, with the stored or default rules. */
export async function scoringSwitched(env: Bindings, ws: Workspace): Promise<void> {
  await writeConfig(env, ws, { enabled: ws.leadScoring });
}

/**
 * Writes the shard's configuration, guarded on the row read (a parallel write makes it read again). Switching on or
 * changing what a score is made of while on starts a new rescoring walk of the workspace's contacts.
 */
async function writeConfig(env: Bindings, ws: Workspace, input: ScoringInput): Promise<ConfigRow> {
  const db = shardDb(env, ws.shard, ws.id);
  for (let attempt = 0; ; attempt++) {
    const prev = await storedConfig(db, ws.id);
    const rules = JSON.stringify(input.rules ?? (prev ? JSON.parse(prev.rules) : DEFAULT_RULES));
    const halfLife = input.half_life_days !== undefined ? input.half_life_days : prev ? prev.half_life_days : DEFAULT_HALF_LIFE_DAYS;
    const rescore = input.enabled && (!prev?.enabled || prev.rules !== rules || prev.half_life_days !== halfLife);
    const generation = (prev?.rescore_generation ?? 0) + (rescore ? 1 : 0);
    const after = rescore ? '' : (prev?.rescore_after ?? null);
    const now = nowIso();
    const [written] = await rawAll<ConfigRow>(
      db,
      prev
        ? sql`UPDATE ${scoringConfigs} SET enabled = ${input.enabled ? 1 : 0}, rules = ${rules}, half_life_days = ${halfLife},
            rescore_generation = ${generation}, rescore_after = ${after}, rescore_touched_at = ${rescore ? now : prev.rescore_touched_at}, updated_at = ${now}
            WHERE workspace_id = ${ws.id} AND rescore_generation = ${prev.rescore_generation} AND updated_at = ${prev.updated_at} RETURNING *`
        : sql`INSERT INTO ${scoringConfigs} (workspace_id, enabled, rules, half_life_days, rescore_generation, rescore_after, rescore_touched_at, updated_at)
            VALUES (${ws.id}, ${input.enabled ? 1 : 0}, ${rules}, ${halfLife}, ${generation}, ${after}, ${now}, ${now})
            ON CONFLICT (workspace_id) DO NOTHING RETURNING *`,
    );
    if (written) {
      if (rescore) await sendRescore(env, ws.id, generation, '');
      return written;
    }
    if (attempt >= 10) throw new Error('scoring configuration kept changing under the write');
  }
}
