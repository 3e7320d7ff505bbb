import { type AnyColumn, Column, is, type SQL, sql } from 'drizzle-orm';
import { moveMarks } from '../../schema';

declare const aliased: unique symbol;

/** The `workspace_id` of a table a raw query names by an alias (`s.workspace_id`): made only by `workspaceIdOf`. */
export type AliasedWorkspaceId = SQL & { readonly [aliased]: true };

const ALIAS = /^[A-Za-z_][A-Za-z0-9_]*$/;
const made = new WeakSet<SQL>();

/** `"<alias>"."workspace_id"`, for a selection that names its table by an alias or by its plain name in raw SQL (`FROM newsletter_subscriptions s`). */
export function workspaceIdOf(alias: string): AliasedWorkspaceId {
  if (!ALIAS.test(alias)) throw new Error(`workspaceIdOf: ${JSON.stringify(alias)} is not a table name or alias`);
  const id = sql`${sql.identifier(alias)}.${sql.identifier('workspace_id')}`;
  made.add(id);
  return id as AliasedWorkspaceId;
}

/**
 * A row's workspace is settled on this shard: no move is copying it in, switching it away or
 * clearing its old copy here, and it has not left (its mark, if any, says `departing`: still served
 * from here; `gone` is not settled). Sweeps select only such rows, so a copy arriving on a shard is
 * never worked on twice (its rows are the source's, which its own shard's sweeps handle), and a
 * fenced or clearing copy never fails a sweep's batch for the other workspaces in it.
 *
 * `workspaceId` is a drizzle column (rendered table-qualified) or `workspaceIdOf(alias)`, never a
 * bare name: inside the subquery a bare `workspace_id` is the mark's own column, and one mark of any
 * workspace would then hide every row of the shard from the sweep.
 */
export function settledHere(workspaceId: AnyColumn | AliasedWorkspaceId): SQL {
  if (!is(workspaceId, Column) && !made.has(workspaceId))
    throw new Error('settledHere takes a drizzle column or workspaceIdOf(alias), never a bare column name');
  return sql`NOT EXISTS (SELECT 1 FROM ${moveMarks} WHERE ${moveMarks.workspaceId} = ${workspaceId} AND ${moveMarks.role} <> 'departing')`;
}
