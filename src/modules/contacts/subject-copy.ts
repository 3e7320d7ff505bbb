import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { planOf, readAll } from '../../platform/d1/operation';
import { parsePaging } from '../../platform/list';
import { rawAll } from '../../platform/d1/raw-query';
import type { ExportKind } from '../../platform/personal-data';
import { contactExtensions } from './extensions';
import { ownPersonalData } from './personal-data';
import { answeredJson } from './read';
import { contactIdentifiers, contacts } from './schema';
import { SharedErrors } from '../../platform/shared-errors';
import { ContactErrors } from './errors';

/**
 * Everything a workspace holds about one contact, kind by kind (a data subject's copy). Each kind
 * is the stored records as they are, JSON columns as JSON values; access secrets (pay-link and
 * unsubscribe tokens) are left out. Each module exports its own kinds (src/platform/personal-data.ts).
 */
export function exportKinds(): Record<string, ExportKind> {
  const out: Record<string, ExportKind> = {};
  for (const records of [ownPersonalData, ...contactExtensions().records]) {
    for (const [name, kind] of Object.entries(records.exportKinds ?? {})) {
      const earlier = out[name];
      out[name] = earlier ? { ...kind, rows: (w, c, a) => sql`${earlier.rows(w, c, a)} UNION ALL ${kind.rows(w, c, a)}` } : kind;
    }
  }
  return out;
}

/** The kinds an export holds, as the operator API documents them; each comes from the module holding those rows. */
export const EXPORT_KIND_NAMES = [
  'identifiers',
  'consent',
  'notes',
  'timeline',
  'tags',
  'groups',
  'custom_values',
  'deals',
  'payments',
  'payment_entries',
  'payment_requests',
  'orders',
  'order_items',
  'order_refunds',
  'emails',
  'whatsapp_conversations',
  'whatsapp_messages',
  'bookings',
  'newsletter_subscriptions',
  'campaign_recipients',
  'form_submissions',
  'attendance',
  'score_signals',
  'automation_enrollments',
] as const;

/** The addresses a contact was ever reached at: its email now and every email of its identifier history (and the same for phones). */
const everHeld = (w: string, c: string, kind: 'email' | 'phone') => {
  const column = sql.raw(kind);
  return sql`SELECT ${column} FROM ${contacts} WHERE workspace_id = ${w} AND id = ${c} AND ${column} IS NOT NULL
    UNION SELECT value FROM ${contactIdentifiers} WHERE workspace_id = ${w} AND contact_id = ${c} AND kind = ${kind}`;
};

/** Rows per kind: 100 unless `limit` says otherwise, at most 1,000. */
const PAGING = { limit: 100, cap: 1000 };

function jsonValues(row: Record<string, unknown>, columns: string[] = []) {
  for (const column of columns) {
    const value = row[column];
    if (typeof value === 'string') {
      try {
        row[column] = JSON.parse(value);
      } catch {
        // Stored as plain text: exported as it is.
      }
    }
  }
  return row;
}

/**
 * The export, one round trip: the contact's answer, then each kind's count and page. Without
 * `kind` every kind gives its first `limit` rows, newest first, and `truncated` names the kinds
 * holding more (with their totals); `kind` with `offset` pages through one of them.
 */
export async function exportContact(db: Db, workspaceId: string, contactId: string, query: { kind?: string; limit?: string; offset?: string }) {
  const paging = parsePaging(query, PAGING);
  const only = query.kind === undefined || query.kind === '' ? undefined : query.kind;
  if (only !== undefined && !(EXPORT_KIND_NAMES as readonly string[]).includes(only))
    throw SharedErrors.notOneOf({ name: 'kind', values: EXPORT_KIND_NAMES.join(', ') });
  const all = exportKinds();
  const kinds = only ? [only] : EXPORT_KIND_NAMES;
  const addresses = { emails: everHeld(workspaceId, contactId, 'email'), phones: everHeld(workspaceId, contactId, 'phone') };
  const offset = only ? paging.offset : 0;
  // Each kind reads its total and its page: a plan of two named reads, resolved to both.
  const pageOf = (name: string) => {
    const kind = all[name];
    const rows = kind.rows(workspaceId, contactId, addresses);
    return planOf(
      {
        total: rawAll<{ n: number }>(db, sql`SELECT count(*) AS n FROM (${rows})`),
        page: rawAll<Record<string, unknown>>(
          db,
          sql`SELECT * FROM (${rows}) ORDER BY ${sql.raw(kind.order ?? 'created_at')} DESC LIMIT ${paging.limit} OFFSET ${offset}`,
        ),
      },
      ({ total: [{ n }], page }) => ({ total: n, rows: page.map((r) => jsonValues(r, kind.json)) }),
    );
  };
  const read = await readAll(db, {
    contact: rawAll<{ answer: string }>(
      db,
      sql`SELECT ${answeredJson} AS answer FROM ${contacts} c WHERE c.workspace_id = ${workspaceId} AND c.id = ${contactId}`,
    ),
    kinds: planOf(Object.fromEntries(kinds.map((name) => [name, pageOf(name)])), (pages) => pages),
  });
  if (read.contact.length === 0) throw ContactErrors.idNotFound({ id: contactId });
  const out: Record<string, unknown> = { contact: JSON.parse(read.contact[0].answer) };
  const truncated: Record<string, number> = {};
  const pages = await read.kinds();
  for (const name of kinds) {
    const { total, rows } = await pages[name]();
    out[name] = rows;
    if (offset + rows.length < total) truncated[name] = total;
  }
  return { ...out, truncated, limit: paging.limit, offset, exported_at: new Date().toISOString() };
}
