import { and, eq, getTableName, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { containsInAny } from '../../platform/list';
import { contacts } from './schema';
import { inSpace, spaceStart } from './search-space';

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

export const serializeContactIdentity = (r: ContactIdentity) => ({
  contact_name: r.contactName,
  contact_phone: r.contactPhone,
  contact_email: r.contactEmail,
});

/**
 * A list's `search` over its records' `title` and their contact's name, phone and email (deals,
 * payments): a case-insensitive literal substring (SQLite `lower()`: ASCII letters fold, `%` and
 * `_` are plain characters), through the table's search index `<table>_search` (a trigram index of
 * the record's title and its contact's identity, kept equal to both rows by triggers, each entry
 * filed in its workspace's search space: migration 0027). The exact rule is always tested on the
 * index's copy of the texts; the trigram index only finds the candidates, a superset (it folds case
 * beyond ASCII).
 *
 * A term of 3+ characters (`search`) is a set of rowids from the workspace's range of the trigram
 * index: cost follows the workspace's own matches, whatever other workspaces of the shard hold. A
 * shorter one (`search_short`, below trigram size) is tested on each record's index entry, one
 * look-up by rowid per record of the workspace. Both read the list's `ws` value for the range. The
 * workspace's own condition comes from `inWorkspace`, which lets the matches drive the query.
 */
export function titleOrContactSearch(table: SQLiteTable, workspaceId: SQLiteColumn) {
  const index = sql.identifier(`${getTableName(table)}_search`);
  const texts = ['title', 'contact_name', 'contact_phone', 'contact_email'].map((name) => sql`${index}.${sql.identifier(name)}`);
  const rowid = sql`${table}.rowid`;
  const entry = sql`${index}.rowid`;
  const start = spaceStart(sql.placeholder('ws'));
  return {
    filters: {
      search: (term: SQLWrapper) =>
        sql`${rowid} IN (SELECT ${entry} - ${start} FROM ${index}
          WHERE ${index} MATCH '"' || replace(${term}, '"', '""') || '"' AND ${inSpace(entry, start)} AND ${containsInAny(term, texts)})`,
      search_short: (term: SQLWrapper) => sql`EXISTS (SELECT 1 FROM ${index} WHERE ${entry} = ${start} + ${rowid} AND ${containsInAny(term, texts)})`,
    },
    /** The list's query values for a trimmed, non-empty term: which of the two filters it is (trigrams are of Unicode characters). */
    values: (term: string): Record<string, string> => ([...term].length >= 3 ? { search: term } : { search_short: term }),
    /**
     * The records of the workspace. With a 3+ character term, unary plus keeps SQLite from
     * walking one of the table's indexes over the workspace (they lead with `workspace_id`), so
     * the matches' rowids drive the count and the page.
     */
    inWorkspace: (present: readonly string[], ws: SQLWrapper): SQL =>
      present.includes('search') ? sql`+${workspaceId} = ${ws}` : eq(workspaceId, ws),
  };
}
