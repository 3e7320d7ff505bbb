import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/**
 * How many rowids each workspace's search space spans (2^40). The search indexes of contacts,
 * payments and deals (`contacts_search`, `payments_search`, `deals_search`; migrations 0021 and
 * 0027) file a record under its workspace's start plus the record's own rowid, so a workspace's
 * entries are one rowid range, whatever the other workspaces of the shard hold.
 */
const SPACE_SIZE = 1099511627776;

/**
 * Where the workspace's entries start: its number in `contact_search_spaces` times
 * `SPACE_SIZE`. NULL for a workspace without one, which has nothing indexed: a range
 * or a look-up from NULL finds no entry.
 */
export const spaceStart = (workspaceId: SQLWrapper | string): SQL =>
  sql`(SELECT space * ${sql.raw(String(SPACE_SIZE))} FROM contact_search_spaces WHERE workspace_id = ${workspaceId})`;

/** The condition keeping an index's entries to the workspace's range (`start`: `spaceStart`). */
export const inSpace = (rowid: SQL, start: SQL): SQL => sql`${rowid} BETWEEN ${start} AND ${start} + ${sql.raw(String(SPACE_SIZE - 1))}`;
