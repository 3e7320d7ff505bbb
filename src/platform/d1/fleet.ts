import { count, inArray } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { shards, workspaces, type SHARD_STATES } from '../control-schema';
import { nowIso } from './db';
import { lostRaceOn, raisedBy } from './constraints';
import { limitVar } from '../rate-limit';
import { controlDb, isShard, measureShard, shardNames } from './shards';
import { SharedErrors } from '../shared-errors';

/**
 * The fleet of data databases as the operator steers it: each bound shard is open or closed to
 * new workspaces, and new workspaces go where there is room, by bytes. Sizes are what D1 reported
 * at the shard's last sweep (every minute), or measured on the spot for a shard never measured.
 */
export type ShardState = (typeof SHARD_STATES)[number];
export type ShardView = { binding: string; workspaces: number; size_bytes: number; state: ShardState };
type Fleet = { binding: string; state: ShardState; size_bytes: number }[];

/** Past this many bytes a shard takes no new workspace: 80% of D1's 10 GB unless `SHARD_FILL_LIMIT_BYTES` says otherwise. */
export const fillLimit = (env: Bindings): number => limitVar(env.SHARD_FILL_LIMIT_BYTES, 8_000_000_000);

/** Records a shard's size as D1 just reported it, and its newest migration when read (its state untouched; a new row is open). */
export async function recordShardSize(env: Bindings, binding: string, sizeBytes: number, schema?: string | null): Promise<void> {
  const now = nowIso();
  const measured = { sizeBytes, measuredAt: now, ...(schema !== undefined ? { schema } : {}) };
  await controlDb(env)
    .insert(shards)
    .values({ binding, ...measured, updatedAt: now })
    .onConflictDoUpdate({ target: shards.binding, set: measured });
}

/** Every bound shard with its state and size; a shard never measured is measured now. */
async function readFleet(env: Bindings): Promise<Fleet> {
  const names = shardNames(env);
  if (names.length === 0) throw new Error('No data database (SHARD_<n> D1 binding) is configured');
  const rows = await controlDb(env).select().from(shards).where(inArray(shards.binding, names));
  const recorded = new Map(rows.map((r) => [r.binding, r]));
  return Promise.all(
    names.map(async (binding) => {
      const row = recorded.get(binding);
      let size = row?.sizeBytes ?? null;
      if (size === null) {
        size = await measureShard(env, binding);
        await recordShardSize(env, binding, size);
      }
      return { binding, state: row?.state ?? 'open', size_bytes: size };
    }),
  );
}

/** GET /admin/v1/shards: every bound shard in binding order. */
export async function listShards(env: Bindings): Promise<ShardView[]> {
  const [fleet, counts] = await Promise.all([
    readFleet(env),
    controlDb(env).select({ shard: workspaces.shard, n: count() }).from(workspaces).groupBy(workspaces.shard),
  ]);
  const placed = new Map(counts.map((r) => [r.shard, r.n]));
  return fleet.map((s) => ({ binding: s.binding, workspaces: placed.get(s.binding) ?? 0, size_bytes: s.size_bytes, state: s.state }));
}

const unknownShard = (binding: string) => SharedErrors.shardNotFound({ binding: binding.slice(0, 100) });

/** PATCH /admin/v1/shards/{binding}: opens or closes a bound shard to new workspaces. */
export async function setShardState(env: Bindings, binding: string, state: ShardState): Promise<ShardView> {
  if (!isShard(env, binding)) throw unknownShard(binding);
  const now = nowIso();
  await controlDb(env)
    .insert(shards)
    .values({ binding, state, updatedAt: now })
    .onConflictDoUpdate({ target: shards.binding, set: { state, updatedAt: now } });
  const view = (await listShards(env)).find((s) => s.binding === binding);
  if (!view) throw unknownShard(binding);
  return view;
}

/**
 * One open shard with room, drawn at random with odds in proportion to its free room: an
 * emptier shard takes more of the new workspaces, but a shard just added does not take all of
 * them at once (a new workspace weighs nothing, so ordering by size alone would send every one
 * to the emptiest shard until it filled). `draw` is in [0, 1).
 */
export function chooseShard(candidates: Fleet, limit: number, draw: number): string {
  const room = candidates.map((s) => Math.max(1, limit - s.size_bytes));
  let left = draw * room.reduce((a, b) => a + b, 0);
  for (let i = 0; i < candidates.length; i++) {
    if (left < room[i]) return candidates[i].binding;
    left -= room[i];
  }
  return candidates[candidates.length - 1].binding;
}

async function placeWorkspace(env: Bindings, requested: string | undefined, draw: number): Promise<string> {
  if (requested !== undefined) {
    if (!isShard(env, requested)) throw SharedErrors.unknownShard({ binding: requested.slice(0, 100), shards: shardNames(env).join(', ') });
    return requested;
  }
  const limit = fillLimit(env);
  const room = (await readFleet(env)).filter((s) => s.state === 'open' && s.size_bytes < limit);
  if (room.length === 0) throw SharedErrors.noShardRoom();
  return chooseShard(room, limit, draw);
}

/** The control plane refuses a workspace row naming a closed shard (a trigger): a close wins over any placement in flight. */
const refusedAsClosed = lostRaceOn(raisedBy('workspaces_closed_shard', 'SHARD_CLOSED'));

/**
 * Places a new workspace and creates it there. A shard closed between the choice and the
 * insert refuses the row; the choice is then made again (the closed shard no longer counts).
 * A shard the operator named and closed answers 409.
 */
export async function createPlaced<T>(env: Bindings, requested: string | undefined, create: (shard: string) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const shard = await placeWorkspace(env, requested, Math.random());
    try {
      return await create(shard);
    } catch (err) {
      if (!refusedAsClosed(err)) throw err;
      if (requested !== undefined) throw SharedErrors.shardClosed({ binding: requested });
      if (attempt >= 2) throw SharedErrors.noShardRoom();
    }
  }
}
