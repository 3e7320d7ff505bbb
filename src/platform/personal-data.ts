import { sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db, Statement } from './d1/db';
import { rawRun } from './d1/raw-query';

/** A kind of record in a contact's data export: its rows, the columns stored as JSON text, the column it is ordered by (newest first). */
export type ExportKind = {
  rows: (workspaceId: string, contactId: string, addresses: ContactAddresses) => SQL;
  json?: string[];
  order?: string;
};

/** Sub-queries selecting a contact's addresses (one column each): for an export every address it ever had, for an erasure those no other contact holds now. */
export type ContactAddresses = { emails: SQL; phones: SQL };

/**
 * What a module holding rows about a person (a contact, by `contact_id` or by address) declares in its
 * manifest, so the contacts module merges, erases and exports people without naming other modules'
 * tables. Every statement joins the one batch of its operation.
 */
export type PersonalData = {
  /** Data-subject export kinds; a kind several modules contribute is the union of their rows (same columns). */
  exportKinds?: Record<string, ExportKind>;
  /** Moves the absorbed contact's rows to the target (a merge). */
  rekey?: (db: Db, workspaceId: string, fromId: string, toId: string) => Statement[];
  /** Deletes or strips of identifiers the contact's rows; runs while the contact row still exists. */
  erase?: (db: Db, workspaceId: string, contactId: string, addresses: ContactAddresses) => Statement[];
};

/** Statements that run in the batch linking tags to a contact, after the links are written. */
export type TagsLinked = (db: Db, workspaceId: string, contactId: string, now: string) => Statement[];

/** Rows of `table` belonging to one contact of one workspace. */
export const contactRows = (table: SQLiteTable, workspaceId: string, contactId: string) =>
  sql`${table} WHERE workspace_id = ${workspaceId} AND contact_id = ${contactId}`;

/** An export kind reading a table's rows of the contact as stored. */
export const ownRows = (table: SQLiteTable, order = 'created_at', json?: string[]): ExportKind => ({
  rows: (w, c) => sql`SELECT * FROM ${contactRows(table, w, c)}`,
  order,
  json,
});

/** A merge step for a table with at most one row per contact and key: the target's own row wins, the absorbed one's goes. */
export const rekeyKeyed = (db: Db, table: SQLiteTable, workspaceId: string, fromId: string, toId: string): Statement[] => [
  rawRun(db, sql`UPDATE OR IGNORE ${table} SET contact_id = ${toId} WHERE workspace_id = ${workspaceId} AND contact_id = ${fromId}`),
  rawRun(db, sql`DELETE FROM ${contactRows(table, workspaceId, fromId)}`),
];

/** A merge step for a table of many rows per contact: all move to the target. */
export const rekeyAll = (db: Db, table: SQLiteTable, workspaceId: string, fromId: string, toId: string): Statement =>
  rawRun(db, sql`UPDATE ${table} SET contact_id = ${toId} WHERE workspace_id = ${workspaceId} AND contact_id = ${fromId}`);

/** An erasure step keeping the contact's rows of a table without identifiers: `set` names the columns cleared. */
export const scrubRows = (db: Db, table: SQLiteTable, set: SQL, workspaceId: string, contactId: string): Statement =>
  rawRun(db, sql`UPDATE ${table} SET ${set} WHERE workspace_id = ${workspaceId} AND contact_id = ${contactId}`);

/** An erasure step removing the contact's rows of a table. */
export const deleteRows = (db: Db, table: SQLiteTable, workspaceId: string, contactId: string): Statement =>
  rawRun(db, sql`DELETE FROM ${contactRows(table, workspaceId, contactId)}`);
