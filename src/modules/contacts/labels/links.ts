import { and, eq, sql, type SQLWrapper } from 'drizzle-orm';
import type { Db, Statement } from '../../../platform/d1/db';
import { uuidv7 } from '../../../platform/ids';
import { prepared, preparedSql } from '../../../platform/d1/prepared';
import { guardable, type RowGuard } from '../../../platform/d1/row-guard';
import { contactExtensions } from '../extensions';
import { contactTagLinks } from '../schema';
import { groups, tags } from './schema';

/**
 * Contacts name tags and groups on writes and get ids back on reads. These
 * helpers turn names into ids and keep the contact's junction rows, race-safe:
 * missing labels are inserted with ON CONFLICT DO NOTHING on the unique
 * (workspace, lower(name)) key and links are joined by that key, so a label
 * created concurrently by another request is linked rather than duplicated.
 */
export type LabelKind = 'tags' | 'groups';

/** `add` links the named labels, `replace` makes the set exactly them, `remove` unlinks them. */
export type LabelMode = 'add' | 'replace' | 'remove';

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
export function findLabels(db: Db, kind: LabelKind, workspaceId: string, keys: string[]) {
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

/** Labels missing from the workspace, inserted in one statement; a label created meanwhile by another request stays as it is. */
const labelInserts = ({ table }: (typeof TABLES)[LabelKind]) =>
  guardable((condition) =>
    preparedSql('run', () => {
      const at = sql.placeholder('at');
      return sql`INSERT INTO ${table} (id, workspace_id, name, name_key, color, description, created_at, updated_at)
        SELECT j.value ->> 'id', ${sql.placeholder('ws')}, j.value ->> 'name', j.value ->> 'key', NULL, NULL, ${at}, ${at}
        FROM json_each(${sql.placeholder('rows')}) j WHERE ${condition}
        ON CONFLICT DO NOTHING`;
    }),
  );

/** The contact's links to the named labels (`keys`, a JSON array of name keys). */
const linkInserts = ({ table, links, column }: (typeof TABLES)[LabelKind]) =>
  guardable((condition) =>
    preparedSql('run', () => {
      const [ws, keys] = [sql.placeholder('ws'), sql.placeholder('keys')];
      return sql`INSERT INTO ${sql.raw(links)} (workspace_id, contact_id, ${sql.raw(column)}, created_at)
        SELECT ${ws}, ${sql.placeholder('contact')}, id, ${sql.placeholder('at')} FROM ${table}
        WHERE workspace_id = ${ws} AND name_key IN (SELECT value FROM json_each(${keys})) AND ${condition}
        ON CONFLICT DO NOTHING`;
    }),
  );

/** The contact's links to labels not named, removed. */
const linkDeletes = ({ table, links, column }: (typeof TABLES)[LabelKind]) =>
  preparedSql('run', () => {
    const [ws, contact] = [sql.placeholder('ws'), sql.placeholder('contact')];
    return sql`DELETE FROM ${sql.raw(links)} WHERE workspace_id = ${ws} AND contact_id = ${contact} AND ${sql.raw(column)} NOT IN
      (SELECT id FROM ${table} WHERE workspace_id = ${ws} AND name_key IN (SELECT value FROM json_each(${sql.placeholder('keys')})))`;
  });

/** The contact's links to the named labels, removed. */
const namedLinkDeletes = ({ table, links, column }: (typeof TABLES)[LabelKind]) =>
  preparedSql('run', () => {
    const [ws, contact] = [sql.placeholder('ws'), sql.placeholder('contact')];
    return sql`DELETE FROM ${sql.raw(links)} WHERE workspace_id = ${ws} AND contact_id = ${contact} AND ${sql.raw(column)} IN
      (SELECT id FROM ${table} WHERE workspace_id = ${ws} AND name_key IN (SELECT value FROM json_each(${sql.placeholder('keys')})))`;
  });

const linkStatementsOf = (kind: (typeof TABLES)[LabelKind]) => ({
  unlinkNamed: namedLinkDeletes(kind),
  insertLabels: labelInserts(kind),
  link: linkInserts(kind),
  unlink: linkDeletes(kind),
});
const LINK_STATEMENTS = { tags: linkStatementsOf(TABLES.tags), groups: linkStatementsOf(TABLES.groups) };

/**
 * Statements making the contact's links match `names`: `add` only adds,
 * `replace` also removes links to labels not named, `remove` removes the links to those named. With `guard`, nothing is
 * written unless it holds as the batch runs (a contact created in the same batch).
 */
export function linkStatements(
  db: Db,
  kind: LabelKind,
  opts: {
    workspaceId: string;
    contactId: string;
    names: Map<string, string>;
    missingKeys: string[];
    mode: LabelMode;
    now: string;
    guard?: RowGuard;
  },
): Statement[] {
  const statements = LINK_STATEMENTS[kind];
  const { workspaceId, contactId, names, now, guard } = opts;
  const values = { ws: workspaceId, contact: contactId, at: now, keys: JSON.stringify([...names.keys()]) };
  if (opts.mode === 'remove') return [statements.unlinkNamed.in(db, values)];
  const out: Statement[] = [];
  if (opts.missingKeys.length) {
    const rows = opts.missingKeys.map((key) => ({ id: uuidv7(), name: names.get(key)!, key }));
    out.push(statements.insertLabels.in(db, { ws: workspaceId, at: now, rows: JSON.stringify(rows) }, guard));
  }
  if (opts.mode === 'replace') out.push(statements.unlink.in(db, values));
  if (names.size) {
    out.push(statements.link.in(db, values, guard));
    // Rules other modules attach to tags (a newsletter's auto-subscribe) join the batch once the links exist.
    if (kind === 'tags') for (const linked of contactExtensions().tagsLinked) out.push(...linked(db, workspaceId, contactId, now));
  }
  return out;
}

/** True when contact `contactId` of workspace `workspaceId` carries tag `tagId` (SQL expressions, e.g. placeholders). */
export const contactCarriesTag = (workspaceId: SQLWrapper, contactId: SQLWrapper, tagId: SQLWrapper) =>
  sql`EXISTS (SELECT 1 FROM ${contactTagLinks} ct WHERE ct.workspace_id = ${workspaceId} AND ct.contact_id = ${contactId} AND ct.tag_id = ${tagId})`;
