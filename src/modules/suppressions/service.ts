import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import type { Db } from '../../platform/d1/db';
import { writeThenRead } from '../../platform/d1/write-then-read';
import { nowIso } from '../../platform/d1/db';
import { SuppressionErrors } from './errors';
import { uuidv7 } from '../../platform/ids';
import { envelope, parsePaging } from '../../platform/list';
import { prepared, preparedSql, runPrepared } from '../../platform/d1/prepared';
import { emailSuppressions, globalEmailSuppressions, type SuppressionReason } from './schema';

type Row = typeof emailSuppressions.$inferSelect;

export const serializeSuppression = (r: Row) => ({
  id: r.id,
  email: r.email,
  reason: r.reason,
  source: r.source,
  note: r.note,
  created_at: r.created_at,
});

/** The list's count and page, for the whole workspace or one address (values: `ws`, `email`, `limit`, `offset`). */
function listQueries(where: SQL | undefined) {
  return {
    count: prepared((db) => db.select({ n: sql<number>`count(*)` }).from(emailSuppressions).where(where)),
    page: prepared((db) =>
      db
        .select()
        .from(emailSuppressions)
        .where(where)
        .orderBy(desc(emailSuppressions.created_at), desc(emailSuppressions.id))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset')),
    ),
  };
}
const inWorkspace = listQueries(eq(emailSuppressions.workspace_id, sql.placeholder('ws')));
const byEmail = listQueries(and(eq(emailSuppressions.workspace_id, sql.placeholder('ws')), eq(emailSuppressions.email, sql.placeholder('email'))));

export async function listSuppressions(ctx: ServiceContext, query: { email?: string; limit?: string; offset?: string }) {
  const paging = parsePaging(query, { limit: 50, cap: 500 });
  const email = query.email?.trim().toLowerCase();
  const queries = email ? byEmail : inWorkspace;
  const values = { ws: ctx.ws.id, email, limit: paging.limit, offset: paging.offset };
  const [counted, rows] = await runPrepared(ctx.db, [queries.count.getIn(ctx.db, values), queries.page.allIn(ctx.db, values)] as const);
  return envelope(rows.map(serializeSuppression), counted?.n ?? 0, paging);
}

export type SuppressionInput = { email: string; reason?: SuppressionReason; note?: string | null };

/**
 * The insert of a suppression that keeps an existing row (the unique index
 * per workspace and email settles races): usable in another write's batch
 * (provider-reported bounces and complaints).
 */
export function suppressStatement(
  db: Db,
  workspaceId: string,
  email: string,
  reason: SuppressionReason,
  source: string,
  note: string | null = null,
  id = uuidv7(),
) {
  return db
    .insert(emailSuppressions)
    .values({ id, workspace_id: workspaceId, email: email.trim().toLowerCase(), reason, source, note, created_at: nowIso() })
    .onConflictDoNothing({ target: [emailSuppressions.workspace_id, emailSuppressions.email] });
}

/** POST /v1/suppressions: 201 both ways; an existing row comes back unchanged with `duplicate: true`. Consent is never touched. */
export async function addSuppression(ctx: ServiceContext, input: SuppressionInput) {
  const id = uuidv7();
  const email = input.email.trim().toLowerCase();
  const { stored } = await writeThenRead(
    ctx.db,
    [suppressStatement(ctx.db, ctx.ws.id, email, input.reason ?? 'manual', 'api', input.note ?? null, id)],
    {
      stored: ctx.db
        .select()
        .from(emailSuppressions)
        .where(and(eq(emailSuppressions.workspace_id, ctx.ws.id), eq(emailSuppressions.email, email))),
    },
  );
  const [row] = stored;
  return { ...serializeSuppression(row), duplicate: row.id !== id };
}

/** DELETE: this workspace's row only; lifts the send-time block and resubscribes no one. */
export async function removeSuppression(ctx: ServiceContext, id: string) {
  const gone = await ctx.db
    .delete(emailSuppressions)
    .where(and(eq(emailSuppressions.workspace_id, ctx.ws.id), eq(emailSuppressions.id, id)))
    .returning({ id: emailSuppressions.id });
  if (gone.length === 0) throw SuppressionErrors.notFound();
  return { success: true as const };
}

/**
 * SQL: whether `email` is suppressed for `workspace` by what its shard holds: its own list, or a
 * platform-list row not yet moved to the control plane (the control plane's list is read apart,
 * ./platform-list.ts). Both may be columns or values.
 */
export const suppressedSql = (workspace: SQL, email: SQL) =>
  sql`(EXISTS (SELECT 1 FROM ${emailSuppressions} s WHERE s.workspace_id = ${workspace} AND s.email = ${email})
    OR ${shardPlatformListed(email)})`;

/** SQL: whether the shard still holds a platform-list row for `email` from before the list moved to the control plane. */
export const shardPlatformListed = (email: SQL) => sql`EXISTS (SELECT 1 FROM ${globalEmailSuppressions} g WHERE g.email = ${email})`;

/** The workspace lists' rows (`workspace_id`, `email`) for a caller's FROM clause: a count walks the list once instead of looking up each contact. */
export const suppressionRows = sql`${emailSuppressions}`;

/** Whether an address is blocked for a workspace, as one statement for a read batch. */
export const suppressedQuery = (db: Db, workspaceId: string, email: string) => suppressedRead.in(db, { ws: workspaceId, email });

const suppressedRead = preparedSql(
  'all',
  () => sql`SELECT ${suppressedSql(sql`${sql.placeholder('ws')}`, sql`${sql.placeholder('email')}`)} AS suppressed`,
);
