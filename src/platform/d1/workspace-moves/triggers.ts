import { type MovedTable, quoted } from './inventory';

/**
 * The triggers a move installs on its source shard. Their SQL is built from names read from the
 * shard's schema (`quoted` refuses anything else) and from the move's and workspace's ids, which
 * are checked to be UUIDs first.
 *
 * - Capture (AFTER INSERT/UPDATE/DELETE), for the moving workspace only: the written row's key
 *   goes to `move_changes`, in the transaction of the write itself, so a committed write is always
 *   logged and nothing is missed. Dropped at the switch.
 * - Fence (BEFORE INSERT/UPDATE/DELETE), one set per table for every workspace, never dropped:
 *   while the written row's workspace has a mark on the shard in a refusing role, the write fails
 *   whole with `WORKSPACE_MOVING`. A workspace that left the shard keeps a `gone` mark there, so a
 *   write a stale route sends it later is refused, never accepted into a copy nobody reads.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The message the fence raises; src/platform/errors.ts answers it as 503 WORKSPACE_MOVING. */
export const FENCE_MESSAGE = 'WORKSPACE_MOVING';

function literal(id: string): string {
  if (!UUID.test(id)) throw new Error(`Refusing the id ${JSON.stringify(id)} in a move's SQL`);
  return `'${id}'`;
}

/** Capture trigger names carry the move's id (without dashes) and the table: `move_<id>_c<kind>_<table>`. */
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

/** The fence triggers' names start with this; test/platform/triggers.test.ts tells them from the migrations' triggers by it. */
export const FENCE_PREFIX = 'move_fence_';

/** Mark roles whose inserts and updates the fence refuses: the switch, the old copy being cleared, a workspace that left. */
const REFUSING_WRITES = ['fenced', 'clearing', 'gone'] as const;
/** Mark roles whose deletes the fence refuses: the old copy is cleared by deletes, which pass while it says `clearing`. */
const REFUSING_DELETES = ['fenced', 'gone'] as const;

/** The fence triggers of one table (`move_fence_{i,u,d}_<table>`): three statements, the same for every move and workspace. */
export function fenceTriggers(t: MovedTable): string[] {
  const name = (kind: string) => quoted(`${FENCE_PREFIX}${kind}_${t.name}`);
  const table = quoted(t.name);
  // move_marks.workspace_id is its primary key: each test is one index lookup (two for an update).
  const marked = (ids: string, roles: readonly string[]) =>
    `EXISTS (SELECT 1 FROM move_marks WHERE workspace_id IN (${ids}) AND role IN (${roles.map((r) => `'${r}'`).join(', ')}))`;
  const raise = `BEGIN SELECT RAISE(ABORT, '${FENCE_MESSAGE}'); END`;
  return [
    `CREATE TRIGGER IF NOT EXISTS ${name('i')} BEFORE INSERT ON ${table} WHEN ${marked('NEW.workspace_id', REFUSING_WRITES)} ${raise}`,
    `CREATE TRIGGER IF NOT EXISTS ${name('u')} BEFORE UPDATE ON ${table} WHEN ${marked('NEW.workspace_id, OLD.workspace_id', REFUSING_WRITES)} ${raise}`,
    `CREATE TRIGGER IF NOT EXISTS ${name('d')} BEFORE DELETE ON ${table} WHEN ${marked('OLD.workspace_id', REFUSING_DELETES)} ${raise}`,
  ];
}

/** The names of a move's capture triggers live on a shard, read from its schema. */
export async function captureTriggersOn(db: D1Database, moveId: string): Promise<string[]> {
  const prefix = `${movePrefix(moveId)}c`;
  const { results } = await db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND substr(name, 1, length(?1)) = ?1")
    .bind(prefix)
    .all<{ name: string }>();
  return results.map((r) => r.name);
}

export const dropTrigger = (name: string) => `DROP TRIGGER IF EXISTS ${quoted(name)}`;
