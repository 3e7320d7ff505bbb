import { lt, sql } from 'drizzle-orm';
import { registerSweep } from '../../sweeps/registry';
import { idempotencyKeys } from './schema';

/** Keys are kept at least this long; the sweep forgets them a day later. */
const KEPT_MS = 48 * 3_600_000;
/** Rows forgotten per pass, so a big backlog never makes one long statement. */
const PASS = 5_000;

registerSweep('idempotency-keys', async (_env, db) => {
  const cutoff = new Date(Date.now() - KEPT_MS).toISOString();
  const old = db.select({ rowid: sql`rowid` }).from(idempotencyKeys).where(lt(idempotencyKeys.createdAt, cutoff)).limit(PASS);
  const { meta } = await db.delete(idempotencyKeys).where(sql`rowid IN ${old}`).run();
  return { idempotency_keys_forgotten: meta.changes };
});
