import { sql, type SQL } from 'drizzle-orm';
import { runBatch, type Db } from '../../platform/d1/db';
import { SharedErrors } from '../../platform/shared-errors';
import { parsePaging } from '../../platform/list';
import { rawAll } from '../../platform/d1/raw-query';
import { answeredJson } from './read';

/**
 * Everything a workspace holds about one contact, kind by kind (a data subject's copy). Each kind
 * is the stored records as they are, JSON columns as JSON values; access secrets (pay-link and
 * unsubscribe tokens) are left out. Like the merge, this names the contact-owned tables.
 */
type Kind = {
  /** The rows of workspace `w`'s contact `c`. */
  rows: (w: string, c: string) => SQL;
  /** Columns stored as JSON text. */
  json?: string[];
  /** Newest first by this column. */
  order?: string;
};

const own = (table: string, order = 'created_at'): Kind => ({ rows: (w, c) => sql`SELECT * FROM ${sql.raw(table)} WHERE workspace_id = ${w} AND contact_id = ${c}`, order });

/** The addresses a contact was ever reached at: its email now and every email of its identifier history. */
const emailsOf = (w: string, c: string) => sql`SELECT email FROM contacts WHERE workspace_id = ${w} AND id = ${c} AND email IS NOT NULL
  UNION SELECT value FROM contact_identifiers WHERE workspace_id = ${w} AND contact_id = ${c} AND kind = 'email'`;

export const EXPORT_KINDS: Record<string, Kind> = {
  identifiers: own('contact_identifiers', 'assigned_at'),
  consent: { ...own('consent_ledger'), json: ['evidence'] },
  notes: own('contact_notes'),
  timeline: { ...own('contact_activities'), json: ['data'] },
  tags: {
    rows: (w, c) => sql`SELECT t.id, t.name, t.color, t.description, l.created_at FROM contact_tag_links l JOIN tags t ON t.id = l.tag_id AND t.workspace_id = l.workspace_id
      WHERE l.workspace_id = ${w} AND l.contact_id = ${c}`,
    order: 'created_at',
  },
  groups: {
    rows: (w, c) => sql`SELECT g.id, g.name, g.color, g.description, l.created_at FROM contact_group_links l JOIN contact_groups g ON g.id = l.group_id AND g.workspace_id = l.workspace_id
      WHERE l.workspace_id = ${w} AND l.contact_id = ${c}`,
    order: 'created_at',
  },
  custom_values: own('contact_custom_values', 'key'),
  deals: own('deals'),
  payments: { ...own('payments'), json: ['metadata'] },
  payment_entries: { ...own('payment_entries'), json: ['credit_document'] },
  payment_requests: {
    rows: (w, c) => sql`SELECT id, workspace_id, contact_id, deal_id, provider, status, amount_cents, currency, title, vat_mode, vat_rate, test_mode, pay_url, contact_payment_id,
        provider_session_id, provider_payment_ref, document, expires_at, paid_at, cancelled_at, created_at, updated_at
      FROM payment_requests WHERE workspace_id = ${w} AND contact_id = ${c}`,
    json: ['document'],
    order: 'created_at',
  },
  orders: { ...own('orders'), json: ['coupon_codes', 'metadata'] },
  order_items: own('order_items'),
  order_refunds: own('order_refunds'),
  emails: {
    rows: (w, c) => sql`SELECT * FROM email_sends WHERE workspace_id = ${w} AND "to" IN (${emailsOf(w, c)})`,
    json: ['metadata'],
    order: 'created_at',
  },
  whatsapp_conversations: own('conversations'),
  whatsapp_messages: { ...own('messages'), json: ['media'] },
  bookings: { ...own('bookings'), json: ['host_user_ids'] },
  newsletter_subscriptions: {
    rows: (w, c) => sql`SELECT id, workspace_id, newsletter_id, contact_id, status, source, subscribed_at, unsubscribed_at, created_at, updated_at
      FROM newsletter_subscriptions WHERE workspace_id = ${w} AND contact_id = ${c}`,
    order: 'created_at',
  },
  campaign_recipients: {
    rows: (w, c) => sql`SELECT 'email' AS channel, campaign_id, status, send_id AS sent_as, unsubscribed_at, error, created_at, updated_at
        FROM email_campaign_recipients WHERE workspace_id = ${w} AND contact_id = ${c}
      UNION ALL SELECT 'whatsapp', campaign_id, status, message_id, NULL, error, created_at, updated_at
        FROM whatsapp_campaign_recipients WHERE workspace_id = ${w} AND contact_id = ${c}`,
    order: 'created_at',
  },
  form_submissions: { ...own('form_submissions'), json: ['fields'] },
  attendance: own('event_attendances'),
};

export const EXPORT_KIND_NAMES = Object.keys(EXPORT_KINDS);

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
  if (only !== undefined && !EXPORT_KINDS[only]) throw SharedErrors.notOneOf({ name: 'kind', values: EXPORT_KIND_NAMES.join(', ') });
  const kinds = only ? [only] : EXPORT_KIND_NAMES;
  const offset = only ? paging.offset : 0;
  const statements = [
    rawAll<{ answer: string }>(db, sql`SELECT ${answeredJson} AS answer FROM contacts c WHERE c.workspace_id = ${workspaceId} AND c.id = ${contactId}`),
    ...kinds.flatMap((name) => {
      const kind = EXPORT_KINDS[name];
      const rows = kind.rows(workspaceId, contactId);
      return [
        rawAll<{ n: number }>(db, sql`SELECT count(*) AS n FROM (${rows})`),
        rawAll<Record<string, unknown>>(db, sql`SELECT * FROM (${rows}) ORDER BY ${sql.raw(kind.order ?? 'created_at')} DESC LIMIT ${paging.limit} OFFSET ${offset}`),
      ];
    }),
  ];
  const [contact, ...results] = (await runBatch(db, statements)) as [{ answer: string }[], ...unknown[][]];
  if (contact.length === 0) throw SharedErrors.contactIdNotFound({ id: contactId });
  const out: Record<string, unknown> = { contact: JSON.parse(contact[0].answer) };
  const truncated: Record<string, number> = {};
  kinds.forEach((name, i) => {
    const total = (results[i * 2] as { n: number }[])[0].n;
    const rows = (results[i * 2 + 1] as Record<string, unknown>[]).map((r) => jsonValues(r, EXPORT_KINDS[name].json));
    out[name] = rows;
    if (offset + rows.length < total) truncated[name] = total;
  });
  return { ...out, truncated, limit: paging.limit, offset, exported_at: new Date().toISOString() };
}
