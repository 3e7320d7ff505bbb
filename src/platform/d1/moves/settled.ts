import { type AnyColumn, type SQL, sql } from 'drizzle-orm';
import { moveMarks } from '../../schema';

/**
 * A row's workspace is settled on this shard: no move is copying it in, switching it away or
 * clearing its old copy here, and it has not left (its mark, if any, says `departing`: still served
 * from here; `gone` is not settled). Sweeps select only such rows, so a copy arriving on a shard is
 * never worked on twice (its rows are the source's, which its own shard's sweeps handle), and a
 * fenced or clearing copy never fails a sweep's batch for the other workspaces in it.
 */
export const settledHere = (workspaceId: AnyColumn | SQL): SQL =>
  sql`NOT EXISTS (SELECT 1 FROM ${moveMarks} WHERE ${moveMarks.workspaceId} = ${workspaceId} AND ${moveMarks.role} <> 'departing')`;
