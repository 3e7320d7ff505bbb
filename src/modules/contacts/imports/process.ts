import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Bindings } from '../../../env';
import type { ServiceContext } from '../../../platform/context';
import { failedOn, guardOf } from '../../../platform/d1/constraints';
import { guarded, nowIso, type Statement } from '../../../platform/d1/db';
import { workspaceContext } from '../../workspaces';
import { rowToBody } from '../bulk/columns';
import { type BulkItemResult, checkItem, upsertContacts } from '../bulk/upsert';
import { CHUNK_ROWS, parseRows } from './file';
import { contactImports } from './schema';

export const IMPORT_KIND = 'contact-import';
export type ImportMessage = { kind: typeof IMPORT_KIND; workspace_id: string; import_id: string };

/** Chunks (of `CHUNK_ROWS` rows, one write batch each) one message works through before it hands on to the next. */
export const CHUNKS_PER_MESSAGE = 10;
/** Row errors an import keeps: the first ones. */
export const KEPT_ERRORS = 100;

type ImportRow = typeof contactImports.$inferSelect;
type Tally = Pick<ImportRow, 'processed_rows' | 'created' | 'updated' | 'failed' | 'errors'>;

const messageOf = (error: Record<string, unknown>) => {
  const message = error.message;
  return Array.isArray(message) ? message.join('; ') : String(message);
};

/** The import's counts once a chunk's answers are in: errors name the 1-based data row. */
function tallied(before: Tally, results: BulkItemResult[]): Tally {
  const next = { ...before, errors: [...before.errors] };
  for (const r of results) {
    const row = before.processed_rows + r.index + 1;
    if ('error' in r) {
      next.failed++;
      if (next.errors.length < KEPT_ERRORS) next.errors.push({ row, message: messageOf(r.error) });
    } else if (r.duplicate) next.updated++;
    else next.created++;
  }
  next.processed_rows += results.length;
  return next;
}

/**
 * The chunk's advance, committed with its writes: guarded on the cursor the chunk started from, so a
 * delivery that finds the chunk already done fails its whole batch on this column and writes nothing.
 */
const advance = (ctx: ServiceContext, id: string, from: number, next: Tally): Statement =>
  ctx.db
    .update(contactImports)
    .set({
      ...next,
      processed_rows: guarded(sql`${contactImports.processed_rows} = ${from}`, sql`${next.processed_rows}`) as never,
      status: 'processing',
      updated_at: nowIso(),
    })
    .where(and(eq(contactImports.workspace_id, ctx.ws.id), eq(contactImports.id, id)));

const chunkDone = (err: unknown) => failedOn(err, guardOf(contactImports.processed_rows));

/**
 * One message of an import: up to `CHUNKS_PER_MESSAGE` chunks from the cursor, each one batch upsert
 * with source `import` and no contact events, then the next message (one in flight per import, so a
 * large file never queues ahead of other work). The last one deletes the file and completes the import.
 */
export async function processImport(env: Bindings, body: ImportMessage): Promise<void> {
  const ctx = await workspaceContext(env, body.workspace_id).catch(() => null);
  if (!ctx) return;
  const [row] = await ctx.db
    .select()
    .from(contactImports)
    .where(and(eq(contactImports.workspace_id, ctx.ws.id), eq(contactImports.id, body.import_id)));
  if (!row || row.status === 'completed' || row.status === 'failed') return;
  const chunks = row.chunk_offsets.length - 1;
  const first = Math.ceil(row.processed_rows / CHUNK_ROWS);
  const last = Math.min(chunks, first + CHUNKS_PER_MESSAGE);
  if (first < chunks) {
    const rows = await readRows(env, row, first, last);
    if (!rows) return failImport(ctx, row, 'The file is no longer stored');
    let tally: Tally = row;
    for (let at = 0; at < rows.length; at += CHUNK_ROWS) {
      const items = rows.slice(at, at + CHUNK_ROWS).map((cells) => checkItem(ctx, rowToBody(row.columns, cells)));
      const from = tally.processed_rows;
      let next: Tally = tally;
      try {
        await upsertContacts(ctx, items, {
          source: 'import',
          silent: true,
          along: (results) => {
            next = tallied(tally, results);
            return [advance(ctx, row.id, from, next)];
          },
        });
      } catch (err) {
        // Another delivery of this import did the chunk: it carries on from there.
        if (chunkDone(err)) return;
        throw err;
      }
      tally = next;
    }
    if (last < chunks) {
      await env.SEND_QUEUE.send(body);
      return;
    }
  }
  await completeImport(env, ctx, row);
}

/** The rows of chunks `first` to `last` (excluded): one ranged read of the file. Null when the file is gone. */
async function readRows(env: Bindings, row: ImportRow, first: number, last: number): Promise<string[][] | null> {
  if (!row.file_key) return null;
  const offset = row.chunk_offsets[first];
  const object = await env.FILES.get(row.file_key, { range: { offset, length: row.chunk_offsets[last] - offset } });
  if (!object) return null;
  return parseRows(new Uint8Array(await object.arrayBuffer()), row.delimiter as ',' | ';');
}

async function completeImport(env: Bindings, ctx: ServiceContext, row: ImportRow) {
  if (row.file_key) await env.FILES.delete(row.file_key);
  const now = nowIso();
  await ctx.db
    .update(contactImports)
    .set({ status: 'completed', file_key: null, completed_at: now, updated_at: now })
    .where(and(eq(contactImports.workspace_id, ctx.ws.id), eq(contactImports.id, row.id), inArray(contactImports.status, ['queued', 'processing'])));
}

/**
 * Ends the import failed, unless another delivery moved it on since this one read it: a delivery
 * that finds the file gone because a parallel one applied its last chunk and deleted it leaves the
 * import to that one, which completes it.
 */
async function failImport(ctx: ServiceContext, row: ImportRow, failure: string) {
  const now = nowIso();
  await ctx.db
    .update(contactImports)
    .set({ status: 'failed', failure, file_key: null, completed_at: now, updated_at: now })
    .where(
      and(
        eq(contactImports.workspace_id, ctx.ws.id),
        eq(contactImports.id, row.id),
        inArray(contactImports.status, ['queued', 'processing']),
        eq(contactImports.processed_rows, row.processed_rows),
      ),
    );
}
