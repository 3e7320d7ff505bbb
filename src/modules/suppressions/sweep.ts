import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { inJsonList } from '../../platform/d1/bound-parameters';
import type { Db } from '../../platform/d1/db';
import { rawRun } from '../../platform/d1/raw-query';
import { controlDb } from '../../platform/d1/shards';
import type { SweepResult } from '../../platform/manifest';
import { platformSuppressions } from './control-schema';
import { globalEmailSuppressions } from './schema';

/** Shard rows moved per shard and run. */
const MOVE_CHUNK = 500;

/**
 * The `global-suppressions` sweep: moves the platform-list rows an earlier release kept in
 * each shard into the control plane. Each row is copied first (an address already listed
 * keeps its entry) and deleted from the shard only once the copy is committed, so an
 * address is blocked throughout; the shard's checks honour a row until it is gone. An operator
 * delete landing between a run's read and its copy sees the address back (blocked, never
 * mailed): deleting again ends it. A shard with nothing left costs one empty read per run.
 */
export async function moveShardSuppressions(env: Bindings, db: Db): Promise<SweepResult> {
  const rows = await db.select().from(globalEmailSuppressions).limit(MOVE_CHUNK);
  if (rows.length === 0) return { global_suppressions_moved: 0 };
  await rawRun(
    controlDb(env),
    sql`INSERT INTO ${platformSuppressions} (email, reason, created_at)
      SELECT value ->> 'email', value ->> 'reason', value ->> 'created_at' FROM json_each(${JSON.stringify(rows)}) WHERE 1
      ON CONFLICT (email) DO NOTHING`,
  );
  await db.delete(globalEmailSuppressions).where(
    inJsonList(
      globalEmailSuppressions.email,
      rows.map((r) => r.email),
    ),
  );
  return { global_suppressions_moved: rows.length };
}
