import { settledHere } from '../../../platform/d1/workspace-moves/settled';
import { sql } from 'drizzle-orm';
import type { Bindings } from '../../../env';
import type { Db } from '../../../platform/d1/db';
import { wroteFor } from '../../../platform/d1/floors';
import type { SweepResult } from '../../../platform/manifest';
import { EXPORT_KIND, type ExportMessage } from '../exports/process';
import { contactExports } from '../exports/schema';
import { IMPORT_KIND, type ImportMessage } from '../imports/process';
import { contactImports } from '../imports/schema';

/**
 * How long a job is held without its row moving: every chunk of an import (100 rows) and every page
 * of an export (500 contacts) records its progress with `updated_at` in the batch it writes anyway,
 * so a live job renews it far inside this (a message of ten chunks applies 1,000 rows in about half
 * a second, bench/results.md). Past it the job lost its message (retries spent, a crash before
 * handing on, a dead worker) or its message waits in the queue: the sweep (every minute) sends it
 * one, so the job moves again within two minutes.
 */
export const LEASE_MS = 60_000;
/** Jobs re-driven per table and pass. */
const PASS = 50;

/**
 * `contact-jobs`: queues a new message for every import or export still `queued` or `processing`
 * whose row has not moved for a lease (`LEASE_MS`), taking it with one guarded update that marks it
 * moved (of two sweeps, one takes each job; the next pass leaves it alone for a lease). A message
 * still alive meanwhile is harmless: each chunk or page is recorded once (guarded on the cursor the
 * delivery started from, in the batch that writes it), and the delivery that finds it recorded
 * stops, so two deliveries never apply one chunk twice and one of them carries the job on.
 */
export async function redriveContactJobs(env: Bindings, db: Db, at = Date.now()): Promise<SweepResult> {
  const cutoff = new Date(at - LEASE_MS).toISOString();
  const now = new Date(at).toISOString();
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
