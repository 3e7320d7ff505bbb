import { and, lt, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { Db } from '../../platform/d1/db';
import type { SweepResult } from '../../platform/manifest';
import { idempotencyKeys } from './schema';
import { settledHere } from '../../platform/d1/workspace-moves/settled';

/** Keys are kept at least this long; the sweep forgets them a day later. */
const KEPT_MS = 48 * 3_600_000;
/** Rows forgotten per pass, so a big backlog never makes one long statement. */
const PASS = 5_000;

/** `idempotency-keys`: forgets keys past their keeping time, a bounded pass at a time. */
export async function forgetOldKeys(_env: Bindings, db: Db): Promise<SweepResult> {
  const cutoff = new Date(Date.now() - KEPT_MS).toISOString();
  const old = db
    .select({ rowid: sql`rowid` })
    .from(idempotencyKeys)
    .where(and(lt(idempotencyKeys.createdAt, cutoff), settledHere(idempotencyKeys.workspaceId)))
    .limit(PASS);
  const { meta } = await db.delete(idempotencyKeys).where(sql`rowid IN ${old}`).run();
  return { idempotency_keys_forgotten: meta.changes };
}
