import { and, eq, sql } from 'drizzle-orm';
import type { Bindings } from '../../../env';
import type { ServiceContext } from '../../../platform/context';
import { failedOn, guardOf } from '../../../platform/d1/constraints';
import { guarded, nowIso } from '../../../platform/d1/db';
import { rawAll } from '../../../platform/d1/raw-query';
import { workspaceContext } from '../../workspaces';
import { compileContactFilter } from '../consent/eligibility';
import { filterWith } from '../../../platform/filter';
import { contactCustomValues, contacts } from '../schema';
import { type ExportedContact, exportColumns, exportRows } from './csv';
import { contactExports } from './schema';

export const EXPORT_KIND = 'contact-export';
export type ExportMessage = { kind: typeof EXPORT_KIND; workspace_id: string; export_id: string };

/** Contacts per part (one D1 read, one R2 object); parts per message before it hands on to the next. */
export const PAGE_ROWS = 500;
export const PAGES_PER_MESSAGE = 10;
/** Custom field keys an export has columns for (the first ones by name). */
export const MAX_CUSTOM_COLUMNS = 1_000;
/** Days a completed export's file is kept. */
export const KEPT_DAYS = 7;

type ExportRow = typeof contactExports.$inferSelect;

export const partKey = (row: Pick<ExportRow, 'workspace_id' | 'id'>, part: number) =>
  `contact-exports/${row.workspace_id}/${row.id}/${String(part).padStart(6, '0')}.csv`;
export const exportPrefix = (row: Pick<ExportRow, 'workspace_id' | 'id'>) => `contact-exports/${row.workspace_id}/${row.id}/`;

const labelNames = (links: string, table: string, column: string) =>
  sql.raw(`(SELECT json_group_array(name) FROM (SELECT t.name FROM ${links} l JOIN ${table} t ON t.id = l.${column}
    WHERE l.contact_id = c.id ORDER BY l.created_at, t.name))`);

/**
 * One page of the export: the contacts the filter selects after the cursor, in (creation time, id)
 * order. The filter is a condition on the walk itself, so a page seeks to its cursor on the
 * workspace's creation index and stops after `PAGE_ROWS` matches, however deep into the export.
 */
function exportPage(ctx: ServiceContext, row: ExportRow) {
  const after = row.cursor;
  const { where, values } = row.filter ? compileContactFilter({ wsId: ctx.ws.id }, row.filter) : { where: null, values: [] };
  return rawAll<ExportedContact>(
    ctx.db,
    sql`${filterWith(values)}
      SELECT c.*, ${labelNames('contact_tag_links', 'tags', 'tag_id')} AS tag_names,
        ${labelNames('contact_group_links', 'contact_groups', 'group_id')} AS group_names
      FROM ${contacts} c CROSS JOIN fp
      WHERE c.workspace_id = ${ctx.ws.id} ${where ? sql`AND ${where}` : sql``}
        ${after ? sql`AND (c.created_at, c.id) > (${after.created_at}, ${after.id})` : sql``}
      ORDER BY c.created_at, c.id LIMIT ${PAGE_ROWS}`,
  );
}

/** The workspace's custom field keys, by name: the export's columns are fixed by its first page. */
const customKeys = (ctx: ServiceContext) =>
  ctx.db
    .selectDistinct({ key: contactCustomValues.key })
    .from(contactCustomValues)
    .where(eq(contactCustomValues.workspace_id, ctx.ws.id))
    .orderBy(contactCustomValues.key)
    .limit(MAX_CUSTOM_COLUMNS);

const partWritten = (err: unknown) => failedOn(err, guardOf(contactExports.parts));

/**
 * One message of an export: up to `PAGES_PER_MESSAGE` pages from the cursor, each written to R2 as
 * its own part and then recorded (guarded on the part count it started from: a delivery that finds the
 * page recorded by another stops), then the next message; a short page completes the export.
 */
export async function processExport(env: Bindings, body: ExportMessage): Promise<void> {
  const ctx = await workspaceContext(env, body.workspace_id).catch(() => null);
  if (!ctx) return;
  const [found] = await ctx.db
    .select()
    .from(contactExports)
    .where(and(eq(contactExports.workspace_id, ctx.ws.id), eq(contactExports.id, body.export_id)));
  if (!found || (found.status !== 'queued' && found.status !== 'processing')) return;
  let row = found;
  const columns = row.columns ?? exportColumns((await customKeys(ctx)).map((r) => r.key));
  for (let page = 0; page < PAGES_PER_MESSAGE; page++) {
    const contacts = await exportPage(ctx, row);
    const last = contacts.at(-1);
    const done = contacts.length < PAGE_ROWS;
    if (contacts.length > 0 || row.parts === 0) {
      await env.FILES.put(partKey(row, row.parts), exportRows(columns, contacts, row.parts === 0), {
        httpMetadata: { contentType: 'text/csv; charset=utf-8' },
      });
    }
    const now = nowIso();
    const next = {
      columns,
      parts: contacts.length > 0 || row.parts === 0 ? row.parts + 1 : row.parts,
      row_count: row.row_count + contacts.length,
      cursor: last ? { created_at: last.created_at as string, id: last.id as string } : row.cursor,
      status: done ? ('completed' as const) : ('processing' as const),
      updated_at: now,
      completed_at: done ? now : null,
      expires_at: done ? new Date(Date.now() + KEPT_DAYS * 86_400_000).toISOString() : null,
    };
    try {
      await ctx.db
        .update(contactExports)
        .set({ ...next, parts: guarded(sql`${contactExports.parts} = ${row.parts}`, sql`${next.parts}`) as never })
        .where(and(eq(contactExports.workspace_id, ctx.ws.id), eq(contactExports.id, row.id)));
    } catch (err) {
      // Another delivery of this export recorded the page: it carries on from there.
      if (partWritten(err)) return;
      throw err;
    }
    if (done) return;
    row = { ...row, ...next };
  }
  await env.SEND_QUEUE.send(body);
}
