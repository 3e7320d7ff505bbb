import { and, eq, sql, type AnyColumn, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '../../platform/db';
import { containsInAny } from '../../platform/list';
import { contacts } from './schema';

/**
 * The contact identity other modules' list rows carry (`contact_name`,
 * `contact_phone`, `contact_email`), joined in the list's one query. The
 * contacts module owns the table; callers only spread these pieces.
 */
export const contactIdentityColumns = { contactName: contacts.name, contactPhone: contacts.phone, contactEmail: contacts.email };

export type ContactIdentity = { contactName: string | null; contactPhone: string | null; contactEmail: string | null };

/** The `leftJoin` arguments for a row's contact, scoped to the row's workspace too. */
export const contactIdentityJoin = (contactId: SQLiteColumn, workspaceId: SQLiteColumn) =>
  [contacts, and(eq(contacts.id, contactId), eq(contacts.workspace_id, workspaceId))] as const;

export const serializeContactIdentity = (r: ContactIdentity) => ({ contact_name: r.contactName, contact_phone: r.contactPhone, contact_email: r.contactEmail });

/**
 * The list's total: the rows of `table` in the workspace matching `where`. The contact is
 * joined only when `where` searches its identity (`searched`): SQLite keeps a left join
 * nothing reads, one contact look-up per counted row.
 */
export function countWithContactIdentity(
  db: Db,
  table: SQLiteTable,
  columns: { contactId: SQLiteColumn; workspaceId: SQLiteColumn },
  workspaceId: string | SQLWrapper,
  where: SQL | undefined,
  searched: boolean,
) {
  const count = db.select({ total: sql<number>`count(*)` }).from(table).$dynamic();
  if (searched) count.leftJoin(...contactIdentityJoin(columns.contactId, columns.workspaceId));
  return count.where(and(eq(columns.workspaceId, workspaceId), where));
}

/** A list's `search`: case-insensitive over the record's own `title` and its contact's name, phone and email (deals, payments). */
export const titleOrContactSearch = (title: AnyColumn) => (term: SQLWrapper) => containsInAny(term, [title, contacts.name, contacts.phone, contacts.email]);
