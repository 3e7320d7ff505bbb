import type { Bindings } from '../env';
import type { Db } from '../platform/db';
import { withWriteFloors } from '../platform/floors';
import { onEveryShard } from '../platform/shards';

export type SweepResult = Record<string, number>;
/**
 * One pass over one shard; each pass bounds its own work (a batch size), so a big shard never starves the others.
 * `db` spans the shard: a sweep names the workspaces it wrote with `wroteFor` (../platform/floors.ts).
 */
export type Sweep = (env: Bindings, db: Db) => Promise<SweepResult>;
export type SweepRun = { result: SweepResult; shards: Record<string, SweepResult | { error: string }> };

const sweeps = new Map<string, Sweep>();

/** Each module with periodic work registers it here; cron runs all, the operator route runs one. */
export function registerSweep(name: string, sweep: Sweep): void {
  sweeps.set(name, sweep);
}

export const sweepNames = () => [...sweeps.keys()];
export const findSweep = (name: string) => sweeps.get(name);

/**
 * Runs a sweep on every shard at once: `result` adds up the shards' counts; a failing shard is reported under
 * `shards` and stops no other. The run is one unit of work: each workspace it wrote has its floor raised once.
 */
export async function runSweep(env: Bindings, sweep: Sweep): Promise<SweepRun> {
  const perShard = await withWriteFloors(env, (scoped) => onEveryShard(scoped, (db) => sweep(scoped, db)));
  const run: SweepRun = { result: {}, shards: {} };
  for (const [shard, outcome] of Object.entries(perShard)) {
    if (!outcome.ok) {
      run.shards[shard] = { error: outcome.error };
      continue;
    }
    run.shards[shard] = outcome.value;
    for (const [k, n] of Object.entries(outcome.value)) run.result[k] = (run.result[k] ?? 0) + n;
  }
  return run;
}

/** Runs every sweep on every shard; one failing sweep or shard does not stop the others. */
export async function runAllSweeps(env: Bindings): Promise<Record<string, SweepRun>> {
  const entries = await Promise.all([...sweeps].map(async ([name, sweep]) => [name, await runSweep(env, sweep)] as const));
  return Object.fromEntries(entries);
}
