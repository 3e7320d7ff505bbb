import { and, asc, count, eq, gt, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { nowIso } from '../../platform/d1/db';
import { readAll } from '../../platform/d1/operation';
import { writeThenRead } from '../../platform/d1/write-then-read';
import { SuppressionErrors } from './errors';
import { prepared, preparedSql } from '../../platform/d1/prepared';
import { controlDb, onEveryShard } from '../../platform/d1/shards';
import { platformSuppressions } from './control-schema';
import { globalEmailSuppressions } from './schema';

/**
 * The platform list, in the control plane. Every send-time check reads it there, from the
 * primary (an entry blocks the very next send, wherever it lands), and no instance keeps a
 * copy. Rows an earlier release wrote into each shard are still honoured by the shard's own
 * checks (`suppressedSql`) until the `global-suppressions` sweep has moved them here.
 */
export type PlatformSuppression = typeof platformSuppressions.$inferSelect;

const byEmail = prepared((db) =>
  db
    .select({ email: platformSuppressions.email })
    .from(platformSuppressions)
    .where(eq(platformSuppressions.email, sql.placeholder('email')))
    .limit(1),
);

/** Whether one address is on the list: one look-up by primary key. */
export async function onPlatformList(env: Bindings, email: string): Promise<boolean> {
  return (await byEmail.all(controlDb(env), { email })).length > 0;
}

const listedAmong = preparedSql<{ email: string }>(
  'all',
  () => sql`SELECT email FROM ${platformSuppressions} WHERE email IN (SELECT value FROM json_each(${sql.placeholder('emails')}))`,
);

/** Which of `emails` (normalized addresses) are on the list: one statement for a whole page of recipients. */
export async function platformListed(env: Bindings, emails: string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const rows = await listedAmong.all(controlDb(env), { emails: JSON.stringify([...new Set(emails)]) });
  return new Set(rows.map((r) => r.email));
}

const everyAddress = preparedSql<{ list: string }>('all', () => sql`SELECT json_group_array(email) AS list FROM ${platformSuppressions}`);

/**
 * Every address on the list as one JSON array, for a count that subtracts the list's entries
 * on a shard (the campaign estimate): one statement, its size that of the list.
 */
export async function platformListJson(env: Bindings): Promise<string> {
  const [row] = await everyAddress.all(controlDb(env), {});
  return row?.list ?? '[]';
}

/** An address as the list keys it. */
const listKey = (email: string) => email.trim().toLowerCase();

/** Operator add: 201 both ways; an address already listed comes back as stored (its reason and time unchanged). */
export async function addPlatformSuppression(env: Bindings, email: string, reason: string): Promise<PlatformSuppression> {
  const db = controlDb(env);
  const key = listKey(email);
  const { stored } = await writeThenRead(
    db,
    [db.insert(platformSuppressions).values({ email: key, reason, created_at: nowIso() }).onConflictDoNothing()],
    {
      stored: db.select().from(platformSuppressions).where(eq(platformSuppressions.email, key)),
    },
  );
  return stored[0];
}

/**
 * Operator list, in address order: the list envelope `{data, total, limit, offset}` of the entries
 * matching `email` (exact, any case) and after `after`, `offset` of them skipped; `next_after`
 * resumes an `after` walk, which costs the same however deep (null at its end). One batch.
 */
export async function listPlatformSuppressions(env: Bindings, page: { limit: number; offset: number; after?: string; email?: string }) {
  const db = controlDb(env);
  const where = and(
    page.after === undefined ? undefined : gt(platformSuppressions.email, listKey(page.after)),
    page.email === undefined ? undefined : eq(platformSuppressions.email, listKey(page.email)),
  );
  const { rows, counted } = await readAll(db, {
    rows: db
      .select()
      .from(platformSuppressions)
      .where(where)
      .orderBy(asc(platformSuppressions.email))
      .limit(page.limit + 1)
      .offset(page.offset),
    counted: db.select({ total: count() }).from(platformSuppressions).where(where),
  });
  const data = rows.slice(0, page.limit);
  const next_after = rows.length > page.limit && data.length ? data[data.length - 1].email : null;
  return { data, total: counted[0]?.total ?? 0, limit: page.limit, offset: page.offset, next_after };
}

/**
 * Operator delete: the entry, and the address's rows still on any shard from before the list
 * moved (else the move would bring it back). 404 when neither held it; a shard that could not
 * be reached is a 503 to retry, its row still blocking.
 */
export async function removePlatformSuppression(env: Bindings, email: string): Promise<void> {
  const key = listKey(email);
  const [gone, shards] = await Promise.all([
    controlDb(env).delete(platformSuppressions).where(eq(platformSuppressions.email, key)).returning({ email: platformSuppressions.email }),
    onEveryShard(env, async (db) =>
      db.delete(globalEmailSuppressions).where(eq(globalEmailSuppressions.email, key)).returning({ email: globalEmailSuppressions.email }),
    ),
  ]);
  const failed = Object.entries(shards).filter(([, r]) => !r.ok);
  if (failed.length) throw SuppressionErrors.notRemovedEverywhere({ shards: failed.map(([name]) => name).join(', ') });
  const onShards = Object.values(shards).some((r) => r.ok && r.value.length > 0);
  if (gone.length === 0 && !onShards) throw SuppressionErrors.globalNotFound();
}
