import { and, eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { nowIso } from '../../platform/d1/db';
import { SharedErrors } from '../../platform/shared-errors';
import { uuidv7 } from '../../platform/ids';
import { prepared } from '../../platform/d1/prepared';
import { toE164 } from '../../platform/phone';
import type { Workspace } from '../../platform/workspace';
import { phoneBlacklist } from './schema';

export async function addToBlacklist(db: Db, ws: Workspace, phone: string) {
  const e164 = toE164(phone, ws.defaultCountry);
  if (!e164) throw SharedErrors.invalidPhone();
  const row = { id: uuidv7(), workspaceId: ws.id, phone: e164, createdAt: nowIso() };
  await db.insert(phoneBlacklist).values(row).onConflictDoNothing();
  const [stored] = await db
    .select()
    .from(phoneBlacklist)
    .where(and(eq(phoneBlacklist.workspaceId, ws.id), eq(phoneBlacklist.phone, e164)));
  return { id: stored.id, workspace_id: ws.id, phone: stored.phone, created_at: stored.createdAt };
}

/** The blacklist check as a query to fold into a caller's batch. */
const lookup = prepared((db) =>
  db
    .select({ id: phoneBlacklist.id })
    .from(phoneBlacklist)
    .where(and(eq(phoneBlacklist.workspaceId, sql.placeholder('ws')), eq(phoneBlacklist.phone, sql.placeholder('phone'))))
    .limit(1),
);
export const blacklistLookup = (db: Db, workspaceId: string, e164: string) => lookup.in(db, { ws: workspaceId, phone: e164 });

const lookupMany = prepared((db) =>
  db
    .select({ phone: phoneBlacklist.phone })
    .from(phoneBlacklist)
    .where(
      and(
        eq(phoneBlacklist.workspaceId, sql.placeholder('ws')),
        sql`${phoneBlacklist.phone} IN (SELECT value FROM json_each(${sql.placeholder('phones')}))`,
      ),
    ),
);

/** The blacklist check of many phones (E.164) in one query for a caller's batch: the rows (`phone`) of those listed. */
export const blacklistLookupMany = (db: Db, workspaceId: string, e164s: string[]) =>
  lookupMany.in(db, { ws: workspaceId, phones: JSON.stringify(e164s) });

/** The blacklist check of contact `c`'s phone, as SQL for a caller's statement. */
export const contactPhoneBlacklisted = sql`EXISTS (SELECT 1 FROM ${phoneBlacklist} b WHERE b.workspace_id = c.workspace_id AND b.phone = c.phone)`;

/** The blacklist's rows (`workspace_id`, `phone`) for a caller's FROM clause: a count walks the list once instead of looking up each contact. */
export const blacklistRows = sql`${phoneBlacklist}`;

/** The blacklist check as SQL for a caller's statement (false for a NULL phone). */
export const phoneBlacklisted = (workspaceId: SQLWrapper, e164: SQLWrapper): SQL =>
  sql`EXISTS (SELECT 1 FROM ${phoneBlacklist} WHERE ${phoneBlacklist.workspaceId} = ${workspaceId} AND ${phoneBlacklist.phone} = ${e164})`;
