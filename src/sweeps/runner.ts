import type { Bindings } from '../env';
import { recordShardSize } from '../platform/d1/fleet';
import { withWriteFloors } from '../platform/d1/floors';
import { DATA_SCHEMA, schemaBehind } from '../platform/d1/schema-version';
import { isShard, measureShard, onEveryShard, shardDb, shardNames, shardSchema } from '../platform/d1/shards';
import type { QueueTask, Sweep, SweepResult } from '../platform/manifest';
import { fenceNewTables, redriveMoves } from '../platform/d1/workspace-moves/machine';

export type SweepRun = { result: SweepResult; shards: Record<string, SweepResult | { error: string }> };

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

/** One shard's share of a cron tick: every sweep on it. */
export type ShardSweepMessage = { kind: 'sweep-shard'; shard: string };

/** sendBatch takes at most 100 messages. */
const SEND_BATCH = 100;

/**
 * The cron tick: one message per shard on the sweep queue, sent 100 to a call, and nothing
 * else. Its work grows by one queue call per hundred shards and never touches a database, so the
 * fleet can grow without the tick outgrowing one invocation; each shard's sweeps then run in an
 * invocation of their own, where a slow or failing shard holds back no other.
 */
export async function enqueueSweeps(env: Bindings): Promise<number> {
  const messages = shardNames(env).map((shard) => ({ body: { kind: 'sweep-shard', shard } satisfies ShardSweepMessage }));
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < messages.length; i += SEND_BATCH) calls.push(env.SWEEP_QUEUE.sendBatch(messages.slice(i, i + SEND_BATCH)));
  await Promise.all(calls);
  return calls.length;
}

/**
 * Every sweep of `sweeps` (the wiring's) on one shard (a failing sweep is reported and stops no other),
 * then the shard's size as D1 reports it, for placement (src/platform/d1/fleet.ts), then the moves'
 * upkeep: lost steps sent again, the fence extended to tables added since.
 */
export async function runShardSweeps(
  env: Bindings,
  shard: string,
  sweeps: ReadonlyMap<string, Sweep>,
): Promise<Record<string, SweepResult | { error: string }>> {
  const schema = await shardSchema(env, shard);
  // One unit of work: each workspace the shard's sweeps wrote has its read floor raised once.
  const outcome = schemaBehind(schema) ? behind(shard, schema!, sweeps) : await withWriteFloors(env, (scoped) => everySweep(scoped, shard, sweeps));
  await recordShardSize(env, shard, await measureShard(env, shard), schema);
  // A workspace move off this shard whose step message was lost is taken up again.
  await redriveMoves(env, shard);
  // A table a migration added gets the fence that refuses stale writes of workspaces gone from here.
  if (!schemaBehind(schema)) await fenceNewTables(env, shard).catch((err) => console.error('move fence not extended', shard, err));
  return outcome;
}

async function everySweep(env: Bindings, shard: string, sweeps: ReadonlyMap<string, Sweep>) {
  const db = shardDb(env, shard);
  const names = [...sweeps.keys()];
  const settled = await Promise.allSettled(names.map((name) => sweeps.get(name)!(env, db)));
  return Object.fromEntries(
    settled.map((s, i) => {
      if (s.status === 'fulfilled') return [names[i], s.value];
      console.error('sweep failed', names[i], shard, s.reason);
      return [names[i], { error: s.reason instanceof Error ? s.reason.message : String(s.reason) }];
    }),
  );
}

/** A shard not yet migrated to what this code needs is not swept (its sweeps would fail on what it lacks), only measured. */
function behind(shard: string, schema: string, sweeps: ReadonlyMap<string, Sweep>) {
  const error = `shard ${shard} is at migration ${schema}; this code needs ${DATA_SCHEMA}`;
  console.error(error);
  return Object.fromEntries([...sweeps.keys()].map((name) => [name, { error }]));
}

/** The sweep queue's message kind: one shard's share of a cron tick runs every sweep of `sweeps` on it. */
export const shardSweepsTask = (sweeps: ReadonlyMap<string, Sweep>): QueueTask => ({
  kind: 'sweep-shard',
  run: async (env, body: ShardSweepMessage) => {
    if (isShard(env, body.shard)) await runShardSweeps(env, body.shard, sweeps);
  },
});
