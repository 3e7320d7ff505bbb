import { and, count, desc, eq } from 'drizzle-orm';
import type { Bindings } from '../../../env';
import type { ServiceContext } from '../../../platform/context';
import { nowIso, runBatch } from '../../../platform/d1/db';
import { uuidv7 } from '../../../platform/ids';
import type { Paging } from '../../../platform/list';
import { ContactErrors } from '../errors';
import { checkImportFile } from './file';
import { IMPORT_KIND, type ImportMessage } from './process';
import { contactImports } from './schema';

export type ImportRow = typeof contactImports.$inferSelect;

/** The answer of every import route. */
export const serializeImport = (row: ImportRow) => ({
  id: row.id,
  status: row.status,
  total_rows: row.total_rows,
  processed_rows: row.processed_rows,
  created: row.created,
  updated: row.updated,
  failed: row.failed,
  errors: row.errors,
  created_at: row.created_at,
  completed_at: row.completed_at,
});

/**
 * Checks the whole file (`checkImportFile`), stores it in R2, records the import and queues its
 * first chunk. A file refused writes nothing.
 */
export async function createImport(env: Bindings, ctx: ServiceContext, bytes: Uint8Array): Promise<ImportRow> {
  const file = checkImportFile(bytes);
  const id = uuidv7();
  const key = `contact-imports/${ctx.ws.id}/${id}.csv`;
  await env.FILES.put(key, bytes, { httpMetadata: { contentType: 'text/csv; charset=utf-8' } });
  const now = nowIso();
  const [row] = await ctx.db
    .insert(contactImports)
    .values({
      id,
      workspace_id: ctx.ws.id,
      status: 'queued',
      file_key: key,
      delimiter: file.delimiter,
      columns: file.columns,
      chunk_offsets: file.chunkOffsets,
      total_rows: file.totalRows,
      processed_rows: 0,
      created: 0,
      updated: 0,
      failed: 0,
      errors: [],
      created_at: now,
      updated_at: now,
    })
    .returning();
  await env.SEND_QUEUE.send({ kind: IMPORT_KIND, workspace_id: ctx.ws.id, import_id: id } satisfies ImportMessage);
  return row;
}

export async function getImport(ctx: ServiceContext, id: string): Promise<ImportRow> {
  const [row] = await ctx.db
    .select()
    .from(contactImports)
    .where(and(eq(contactImports.workspace_id, ctx.ws.id), eq(contactImports.id, id)));
  if (!row) throw ContactErrors.importNotFound({ id });
  return row;
}

/** The workspace's imports, newest first, and their total: one round trip. */
export async function listImports(ctx: ServiceContext, paging: Paging) {
  const where = eq(contactImports.workspace_id, ctx.ws.id);
  const [rows, [{ n }]] = (await runBatch(ctx.db, [
    ctx.db
      .select()
      .from(contactImports)
      .where(where)
      .orderBy(desc(contactImports.created_at), desc(contactImports.id))
      .limit(paging.limit)
      .offset(paging.offset),
    ctx.db.select({ n: count() }).from(contactImports).where(where),
  ])) as [ImportRow[], { n: number }[]];
  return { data: rows.map(serializeImport), total: n, ...paging };
}
