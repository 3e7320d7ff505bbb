import { settledHere } from '../../../platform/d1/moves/settled';
import { sql } from 'drizzle-orm';
import type { Bindings } from '../../../env';
import { type Db, nowIso } from '../../../platform/d1/db';
import { wroteFor } from '../../../platform/d1/floors';
import type { SweepResult } from '../../../platform/manifest';
import { EXPORT_KIND, type ExportMessage } from '../exports/process';
import { contactExports } from '../exports/schema';
import { IMPORT_KIND, type ImportMessage } from '../imports/process';
import { contactImports } from '../imports/schema';

/** A job whose row has not moved for this long lost its message (retries spent, or a crash before handing on). */
const STALLED_MS = 10 * 60_000;
/** Jobs re-driven per table and pass. */
const PASS = 50;

/**
 * `contact-jobs`: queues a new message for every import or export still `queued` or `processing`
 * whose row has not moved for 10 minutes, and marks it moved so the next pass leaves it alone. A
 * message still alive meanwhile is harmless: each chunk or page is recorded once (guarded), and the
 * delivery that finds it recorded stops.
 */
export async function redriveContactJobs(env: Bindings, db: Db): Promise<SweepResult> {
  const cutoff = new Date(Date.now() - STALLED_MS).toISOString();
  const now = nowIso();
  const stalled = (table: typeof contactImports | typeof contactExports) =>
    db
      .update(table)
      .set({ updated_at: now })
      .where(
        sql`rowid IN (SELECT rowid FROM ${table} WHERE ${table.status} IN ('queued', 'processing') AND ${table.updated_at} < ${cutoff}
          AND ${settledHere(table.workspace_id)} LIMIT ${PASS})`,
      )
      .returning({ id: table.id, workspace_id: table.workspace_id });
  const [imports, exports] = [await stalled(contactImports), await stalled(contactExports)];
  const messages = [
    ...imports.map((r) => ({ body: { kind: IMPORT_KIND, workspace_id: r.workspace_id, import_id: r.id } satisfies ImportMessage })),
    ...exports.map((r) => ({ body: { kind: EXPORT_KIND, workspace_id: r.workspace_id, export_id: r.id } satisfies ExportMessage })),
  ];
  if (messages.length) await env.SEND_QUEUE.sendBatch(messages);
  wroteFor(
    db,
    [...imports, ...exports].map((r) => r.workspace_id),
  );
  return { contact_imports_redriven: imports.length, contact_exports_redriven: exports.length };
}
