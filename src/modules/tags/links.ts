import { autoSubscribeStatement } from '../newsletters/auto-subscribe';
import { rawRun } from '../../platform/raw-query';
import { and, eq, sql } from 'drizzle-orm';
import { insertGroups } from '../../platform/bound-parameters';
import type { Db, Statement } from '../../platform/db';
import { uuidv7 } from '../../platform/ids';
import { prepared } from '../../platform/prepared';
import { groups, tags } from './schema';

/**
 * Contacts name tags and groups on writes and get ids back on reads. These
 * helpers turn names into ids and keep the contact's junction rows, race-safe:
 * missing labels are inserted with ON CONFLICT DO NOTHING on the unique
 * (workspace, lower(name)) key and links are joined by that key, so a label
 * created concurrently by another request is linked rather than duplicated.
 */
export type LabelKind = 'tags' | 'groups';

const TABLES = {
  tags: { table: tags, links: 'contact_tag_links', column: 'tag_id' },
  groups: { table: groups, links: 'contact_group_links', column: 'group_id' },
} as const;

export const labelKey = (name: string) => name.trim().toLowerCase();

/** Input names deduplicated by key, first spelling kept. */
export function uniqueNames(names: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of names) {
    const key = labelKey(n);
    if (!out.has(key)) out.set(key, n.trim());
  }
  return out;
}

/** Batchable look-up of existing labels by key. */
export function findLabels(db: Db, kind: LabelKind, workspaceId: string, keys: string[]): Statement {
  return labelLookups[kind].in(db, { ws: workspaceId, keys: JSON.stringify(keys) });
}

const labelLookup = (t: (typeof TABLES)[LabelKind]['table']) =>
  prepared((db) =>
    db
      .select({ id: t.id, name_key: t.name_key })
      .from(t)
      .where(and(eq(t.workspace_id, sql.placeholder('ws')), sql`${t.name_key} IN (SELECT value FROM json_each(${sql.placeholder('keys')}))`)),
  );
const labelLookups = { tags: labelLookup(tags), groups: labelLookup(groups) };

/**
 * Statements making the contact's links match `names`: `add` only adds,
 * `replace` also removes links to labels not named.
 */
export function linkStatements(
  db: Db,
  kind: LabelKind,
  opts: { workspaceId: string; contactId: string; names: Map<string, string>; missingKeys: string[]; mode: 'add' | 'replace'; now: string },
): Statement[] {
  const { table, links, column } = TABLES[kind];
  const { workspaceId, contactId, names, now } = opts;
  const keys = JSON.stringify([...names.keys()]);
  const out: Statement[] = [];
  const missing = opts.missingKeys.map((key) => ({
    id: uuidv7(),
    workspace_id: workspaceId,
    name: names.get(key)!,
    name_key: key,
    color: null,
    description: null,
    created_at: now,
    updated_at: now,
  }));
  for (const group of insertGroups(table, missing)) out.push(db.insert(table).values(group).onConflictDoNothing());
  if (opts.mode === 'replace') {
    out.push(
      rawRun(db, sql`DELETE FROM ${sql.raw(links)} WHERE workspace_id = ${workspaceId} AND contact_id = ${contactId} AND ${sql.raw(column)} NOT IN
        (SELECT id FROM ${table} WHERE workspace_id = ${workspaceId} AND name_key IN (SELECT value FROM json_each(${keys})))`),
    );
  }
  if (names.size) {
    out.push(
      rawRun(db, sql`INSERT INTO ${sql.raw(links)} (workspace_id, contact_id, ${sql.raw(column)}, created_at)
        SELECT ${workspaceId}, ${contactId}, id, ${now} FROM ${table}
        WHERE workspace_id = ${workspaceId} AND name_key IN (SELECT value FROM json_each(${keys}))
        ON CONFLICT DO NOTHING`),
    );
    // A newsletter that auto-subscribes on one of these tags subscribes the contact in the same batch.
    if (kind === 'tags') out.push(autoSubscribeStatement(db, workspaceId, contactId, now));
  }
  return out;
}
