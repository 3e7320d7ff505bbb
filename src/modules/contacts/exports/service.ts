import { settledHere } from '../../../platform/d1/workspace-moves/settled';
import { and, asc, count, desc, eq, lte } from 'drizzle-orm';
import type { Bindings } from '../../../env';
import type { ServiceContext } from '../../../platform/context';
import { type Db, nowIso, runBatch } from '../../../platform/d1/db';
import { wroteFor } from '../../../platform/d1/floors';
import { uuidv7 } from '../../../platform/ids';
import type { Paging } from '../../../platform/list';
import type { SweepResult } from '../../../platform/manifest';
import { checkContactFilter } from '../audience';
import { ContactErrors } from '../errors';
import { EXPORT_KIND, type ExportMessage, exportPrefix, partKey } from './process';
import { contactExports } from './schema';

export type ExportRow = typeof contactExports.$inferSelect;

/** The answer of every export route. */
export const serializeExport = (row: ExportRow) => ({
  id: row.id,
  status: row.status,
  row_count: row.row_count,
  filter: row.filter,
  created_at: row.created_at,
  completed_at: row.completed_at,
  expires_at: row.expires_at,
});

/** Records the export (its filter type-checked first) and queues its first page. */
export async function createExport(env: Bindings, ctx: ServiceContext, filter: Record<string, unknown> | undefined): Promise<ExportRow> {
  if (filter) checkContactFilter(filter, ctx.ws.id);
  const now = nowIso();
  const [row] = await ctx.db
    .insert(contactExports)
    .values({
      id: uuidv7(),
      workspace_id: ctx.ws.id,
      status: 'queued',
      filter: filter && Object.keys(filter).length > 0 ? filter : null,
      parts: 0,
      row_count: 0,
      created_at: now,
      updated_at: now,
    })
    .returning();
  await env.SEND_QUEUE.send({ kind: EXPORT_KIND, workspace_id: ctx.ws.id, export_id: row.id } satisfies ExportMessage);
  return row;
}

export async function getExport(ctx: ServiceContext, id: string): Promise<ExportRow> {
  const [row] = await ctx.db
    .select()
    .from(contactExports)
    .where(and(eq(contactExports.workspace_id, ctx.ws.id), eq(contactExports.id, id)));
  if (!row) throw ContactErrors.exportNotFound({ id });
  return row;
}

/** The workspace's exports, newest first, and their total: one round trip. */
export async function listExports(ctx: ServiceContext, paging: Paging) {
  const where = eq(contactExports.workspace_id, ctx.ws.id);
  const [rows, [{ n }]] = (await runBatch(ctx.db, [
    ctx.db
      .select()
      .from(contactExports)
      .where(where)
      .orderBy(desc(contactExports.created_at), desc(contactExports.id))
      .limit(paging.limit)
      .offset(paging.offset),
    ctx.db.select({ n: count() }).from(contactExports).where(where),
  ])) as [ExportRow[], { n: number }[]];
  return { data: rows.map(serializeExport), total: n, ...paging };
}

/**
 * A completed export's file: its parts streamed one after another, one R2 read at a time. Not yet
 * completed answers 409, expired 410.
 */
export async function downloadExport(env: Bindings, ctx: ServiceContext, id: string): Promise<ReadableStream<Uint8Array>> {
  const row = await getExport(ctx, id);
  if (row.status === 'expired') throw ContactErrors.exportExpired({ id });
  if (row.status !== 'completed') throw ContactErrors.exportNotReady({ id, status: row.status });
  let part = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (part >= row.parts) return controller.close();
      const object = await env.FILES.get(partKey(row, part++));
      if (!object) return controller.error(new Error(`export ${row.id}: part ${part - 1} is missing`));
      controller.enqueue(new Uint8Array(await object.arrayBuffer()));
    },
  });
}

/** Exports expired per pass (each a few R2 deletes), so a backlog never makes one long pass. */
const EXPIRE_PASS = 50;

/** `contact-exports`: deletes the files of exports past their 7 days and marks them `expired`, a bounded pass at a time. */
export async function expireContactExports(env: Bindings, db: Db): Promise<SweepResult> {
  const now = nowIso();
  const due = await db
    .select()
    .from(contactExports)
    .where(and(eq(contactExports.status, 'completed'), lte(contactExports.expires_at, now), settledHere(contactExports.workspace_id)))
    .orderBy(asc(contactExports.expires_at))
    .limit(EXPIRE_PASS);
  for (const row of due) {
    const keys = Array.from({ length: row.parts }, (_, i) => partKey(row, i));
    for (let i = 0; i < keys.length; i += 1000) await env.FILES.delete(keys.slice(i, i + 1000));
    const listed = await env.FILES.list({ prefix: exportPrefix(row) });
    if (listed.objects.length) await env.FILES.delete(listed.objects.map((o) => o.key));
    await db
      .update(contactExports)
      .set({ status: 'expired', updated_at: nowIso() })
      .where(and(eq(contactExports.id, row.id), eq(contactExports.status, 'completed')));
  }
  wroteFor(
    db,
    due.map((row) => row.workspace_id),
  );
  return { contact_exports_expired: due.length };
}
