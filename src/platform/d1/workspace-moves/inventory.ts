/**
 * What a workspace move copies, read from the shard's own schema (`sqlite_master` and its
 * pragmas), never from a list kept by hand: a table a later migration adds with a `workspace_id`
 * column is moved without anyone naming it. A table is one of:
 * - moved: it has `workspace_id`; its rows are copied, its writes captured and replayed;
 * - rebuilt: it has `workspace_id` but a module declares that the target's triggers derive its rows
 *   (`notMoved` in a manifest); never copied, deleted with the old copy;
 * - derived: a virtual table (a search index) or one of its shadow tables, filled by triggers;
 * - shared: declared `notMoved` without `workspace_id` (rows no workspace owns), or the moves' own tables.
 * Anything else is unaccounted for, and a test fails on it.
 */

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A name from the schema, quoted for SQL; anything but a plain identifier is refused, so no text reaches SQL unchecked. */
export function quoted(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`Refusing the identifier ${JSON.stringify(name)} in a move's SQL`);
  return `"${name}"`;
}

/** The moves' own tables on a shard: the change log and the marks (src/platform/schema.ts). */
export const MOVE_MACHINERY = ['move_changes', 'move_marks'] as const;

export type MovedTable = {
  name: string;
  columns: string[];
  /** The columns that identify a row across shards: its primary key, else its first full unique index. */
  key: string[];
  /** Every other unique index over plain columns: a stale copied row holding one of its values is replaced. */
  uniques: string[][];
  /** Tables its foreign keys name. */
  parents: string[];
};

export type Inventory = {
  /** Parents before children (foreign keys), so every copied chunk can commit. */
  moved: MovedTable[];
  rebuilt: string[];
  derived: string[];
  shared: string[];
  unaccounted: string[];
};

type Master = { name: string; sql: string | null };
type Column = { name: string; pk: number };
type IndexRow = { name: string; unique: number; partial: number; origin: string };
type IndexColumn = { name: string | null };
type ForeignKey = { table: string };

const internal = (name: string) => /^(sqlite_|_cf_|d1_)/.test(name);

/** Reads a shard's tables and sorts each into what a move does with it (`notMoved`: the manifests' declarations, by table). */
export async function readInventory(db: D1Database, notMoved: ReadonlySet<string>): Promise<Inventory> {
  const { results: master } = await db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all<Master>();
  const tables = master.filter((t) => !internal(t.name));
  const virtual = tables.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql ?? '')).map((t) => t.name);
  const isDerived = (name: string) => virtual.some((v) => name === v || name.startsWith(`${v}_`));
  const candidates = tables.filter((t) => !isDerived(t.name) && !(MOVE_MACHINERY as readonly string[]).includes(t.name)).map((t) => t.name);

  const [columns, foreignKeys, indexLists] = await Promise.all([
    db.batch<Column>(candidates.map((t) => db.prepare(`PRAGMA table_info(${quoted(t)})`))),
    db.batch<ForeignKey>(candidates.map((t) => db.prepare(`PRAGMA foreign_key_list(${quoted(t)})`))),
    db.batch<IndexRow>(candidates.map((t) => db.prepare(`PRAGMA index_list(${quoted(t)})`))),
  ]);
  const uniqueIndexes = candidates.flatMap((table, i) => indexLists[i].results.filter((x) => x.unique === 1).map((x) => ({ table, index: x })));
  const indexColumns = uniqueIndexes.length
    ? await db.batch<IndexColumn>(uniqueIndexes.map((u) => db.prepare(`PRAGMA index_info(${quoted(u.index.name)})`)))
    : [];

  const inventory: Inventory = {
    moved: [],
    rebuilt: [],
    derived: tables.filter((t) => isDerived(t.name)).map((t) => t.name),
    shared: [],
    unaccounted: [],
  };
  inventory.shared.push(...MOVE_MACHINERY.filter((m) => tables.some((t) => t.name === m)));
  const moved: MovedTable[] = [];
  candidates.forEach((name, i) => {
    const cols = columns[i].results;
    const owned = cols.some((c) => c.name === 'workspace_id');
    if (notMoved.has(name)) return void (owned ? inventory.rebuilt : inventory.shared).push(name);
    if (!owned) return void inventory.unaccounted.push(name);
    const primary = cols
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const uniques = uniqueIndexes
      .map((u, j) => ({ ...u, columns: indexColumns[j].results.map((c) => c.name) }))
      .filter((u) => u.table === name && u.columns.every((c): c is string => c !== null))
      .map((u) => ({ full: u.index.partial === 0, columns: u.columns as string[] }));
    const key = primary.length ? primary : uniques.find((u) => u.full)?.columns;
    if (!key) throw new Error(`Table ${name} has no primary key or unique index: a move cannot tell its rows apart`);
    moved.push({
      name,
      columns: cols.map((c) => c.name),
      key,
      uniques: uniques.map((u) => u.columns).filter((u) => u.join() !== key.join()),
      parents: [...new Set(foreignKeys[i].results.map((f) => f.table))].filter((p) => p !== name),
    });
  });
  inventory.moved = parentsFirst(moved);
  return inventory;
}

/** Tables ordered so that every table comes after the tables its foreign keys name. */
function parentsFirst(tables: MovedTable[]): MovedTable[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const out: MovedTable[] = [];
  const placed = new Set<string>();
  const visit = (t: MovedTable, path: Set<string>) => {
    if (placed.has(t.name) || path.has(t.name)) return;
    path.add(t.name);
    for (const p of t.parents) {
      const parent = byName.get(p);
      if (parent) visit(parent, path);
    }
    placed.add(t.name);
    out.push(t);
  };
  for (const t of tables) visit(t, new Set());
  return out;
}
