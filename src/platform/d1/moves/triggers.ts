import { type MovedTable, quoted } from './inventory';

/**
 * The triggers a move installs on its source shard, for the moving workspace only. Their SQL is
 * built from names read from the shard's schema (`quoted` refuses anything else) and from the
 * move's and workspace's ids, which are checked to be UUIDs first.
 *
 * - Capture (AFTER INSERT/UPDATE/DELETE): the written row's key goes to `move_changes`, in the
 *   transaction of the write itself, so a committed write is always logged and nothing is missed.
 * - Fence (BEFORE INSERT/UPDATE/DELETE): while the workspace's mark on the shard says `fenced`
 *   (`clearing` for inserts and updates), the write fails whole with `WORKSPACE_MOVING`.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The message the fence raises; src/platform/errors.ts answers it as 503 WORKSPACE_MOVING. */
export const FENCE_MESSAGE = 'WORKSPACE_MOVING';

function literal(id: string): string {
  if (!UUID.test(id)) throw new Error(`Refusing the id ${JSON.stringify(id)} in a move's SQL`);
  return `'${id}'`;
}

/** Trigger names carry the move's id (without dashes) and the table: `move_<id>_<kind>_<table>`. */
export const movePrefix = (moveId: string) => `move_${literal(moveId).slice(1, -1).replaceAll('-', '')}_`;

const keyOf = (row: 'NEW' | 'OLD', t: MovedTable) => `json_array(${t.key.map((k) => `${row}.${quoted(k)}`).join(', ')})`;

function logRow(moveId: string, t: MovedTable, row: 'NEW' | 'OLD'): string {
  return `INSERT INTO move_changes (move_id, tbl, key) VALUES (${literal(moveId)}, '${t.name}', ${keyOf(row, t)});`;
}

/** The capture triggers of one table: three statements. */
export function captureTriggers(moveId: string, workspaceId: string, t: MovedTable): string[] {
  const name = (kind: string) => quoted(`${movePrefix(moveId)}c${kind}_${t.name}`);
  const ws = literal(workspaceId);
  const table = quoted(t.name);
  return [
    `CREATE TRIGGER IF NOT EXISTS ${name('i')} AFTER INSERT ON ${table} WHEN NEW.workspace_id = ${ws} BEGIN ${logRow(moveId, t, 'NEW')} END`,
    `CREATE TRIGGER IF NOT EXISTS ${name('u')} AFTER UPDATE ON ${table} WHEN NEW.workspace_id = ${ws} OR OLD.workspace_id = ${ws} BEGIN ${logRow(moveId, t, 'OLD')} ${logRow(moveId, t, 'NEW')} END`,
    `CREATE TRIGGER IF NOT EXISTS ${name('d')} AFTER DELETE ON ${table} WHEN OLD.workspace_id = ${ws} BEGIN ${logRow(moveId, t, 'OLD')} END`,
  ];
}

/** The fence triggers of one table: three statements. Deletes pass while the old copy is being cleared. */
export function fenceTriggers(moveId: string, workspaceId: string, t: MovedTable): string[] {
  const name = (kind: string) => quoted(`${movePrefix(moveId)}f${kind}_${t.name}`);
  const ws = literal(workspaceId);
  const table = quoted(t.name);
  const marked = (roles: string) => `EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = ${ws} AND role IN (${roles}))`;
  const raise = `BEGIN SELECT RAISE(ABORT, '${FENCE_MESSAGE}'); END`;
  return [
    `CREATE TRIGGER IF NOT EXISTS ${name('i')} BEFORE INSERT ON ${table} WHEN NEW.workspace_id = ${ws} AND ${marked("'fenced', 'clearing'")} ${raise}`,
    `CREATE TRIGGER IF NOT EXISTS ${name('u')} BEFORE UPDATE ON ${table} WHEN (NEW.workspace_id = ${ws} OR OLD.workspace_id = ${ws}) AND ${marked("'fenced', 'clearing'")} ${raise}`,
    `CREATE TRIGGER IF NOT EXISTS ${name('d')} BEFORE DELETE ON ${table} WHEN OLD.workspace_id = ${ws} AND ${marked("'fenced'")} ${raise}`,
  ];
}

/** The names of a move's triggers of one kind (`c` capture, `f` fence) live on a shard, read from its schema. */
export async function installedTriggers(db: D1Database, moveId: string, kind: 'c' | 'f'): Promise<string[]> {
  const prefix = `${movePrefix(moveId)}${kind}`;
  const { results } = await db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND substr(name, 1, length(?1)) = ?1")
    .bind(prefix)
    .all<{ name: string }>();
  return results.map((r) => r.name);
}

export const dropTrigger = (name: string) => `DROP TRIGGER IF EXISTS ${quoted(name)}`;
