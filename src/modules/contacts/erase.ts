import { sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso, runBatch } from '../../platform/d1/db';
import { SharedErrors } from '../../platform/shared-errors';
import { uuidv7 } from '../../platform/ids';
import { rawAll, rawRun } from '../../platform/d1/raw-query';

/**
 * Erasure of one contact's personal data (a data subject's right to be forgotten), in one D1
 * batch: it happens whole or not at all, and writes racing it land either before it (and are
 * erased with the rest) or after it (and find no contact). Like the merge, this names the
 * contact-owned tables.
 *
 * - Gone: the contact, its identifier history, timeline, notes, tags and groups links, custom
 *   values, attendance, newsletter subscriptions and deliveries, form submissions, merge
 *   requests naming it, suppressions of its addresses, sandbox outbox rows sent to it, stored
 *   `Idempotency-Key` answers that name it; the search indexes follow the contact row.
 * - Kept without identifiers: consent records (channel, action, state and basis; no evidence),
 *   email sends (status and dates; no address, subject or metadata), WhatsApp messages
 *   (direction, status, dates; no text or media), bookings (times and hosts; no invitee name,
 *   email, phone or notes), and for accounting payments, entries, payment requests, orders and
 *   deals (amounts, dates, numbers; no notes, metadata or documents). They keep the erased
 *   contact's id, which names no one any more.
 * - Events: `contact.deleted` with the last-known phone, email and name, computed from the row as
 *   the batch erases it; earlier events naming the contact keep only its id.
 * - Mail still on its way: a booking confirmation (sent after the booking's answer) checks the
 *   booking's invitee address first, which this batch scrubs.
 */
export async function eraseContact(ctx: ServiceContext, contactId: string): Promise<{ id: string; erased_at: string }> {
  const ws = ctx.ws.id;
  const now = nowIso();
  const eventId = uuidv7();
  // The addresses it held, now or in its history, that no other contact holds now.
  const emails = sql`SELECT email FROM contacts WHERE workspace_id = ${ws} AND id = ${contactId} AND email IS NOT NULL
    UNION SELECT value FROM contact_identifiers WHERE workspace_id = ${ws} AND contact_id = ${contactId} AND kind = 'email'
      AND value NOT IN (SELECT email FROM contacts WHERE workspace_id = ${ws} AND id <> ${contactId} AND email IS NOT NULL)`;
  const phones = sql`SELECT phone FROM contacts WHERE workspace_id = ${ws} AND id = ${contactId} AND phone IS NOT NULL
    UNION SELECT value FROM contact_identifiers WHERE workspace_id = ${ws} AND contact_id = ${contactId} AND kind = 'phone'
      AND value NOT IN (SELECT phone FROM contacts WHERE workspace_id = ${ws} AND id <> ${contactId} AND phone IS NOT NULL)`;
  const owned = (table: string) => sql`${sql.raw(table)} WHERE workspace_id = ${ws} AND contact_id = ${contactId}`;
  const run = (q: SQL) => rawRun(ctx.db, q);
  const scrub = (table: string, set: string) => run(sql`UPDATE ${sql.raw(table)} SET ${sql.raw(set)} WHERE workspace_id = ${ws} AND contact_id = ${contactId}`);
  const statements = [
    // First, while the row and its history still exist: the event, and everything found by address.
    run(sql`INSERT INTO event_outbox (id, workspace_id, type, data, created_at, enqueued_at, attempts)
      SELECT ${eventId}, workspace_id, 'contact.deleted', json_object('contact_id', id, 'phone', phone, 'email', email, 'name', name), ${now}, NULL, 0
      FROM contacts WHERE workspace_id = ${ws} AND id = ${contactId}`),
    run(sql`UPDATE event_outbox SET data = json_object('contact_id', ${contactId}) WHERE workspace_id = ${ws} AND id <> ${eventId} AND instr(data, ${contactId}) > 0`),
    run(sql`UPDATE email_sends SET "to" = '', subject = '', metadata = NULL, clicked_url = NULL WHERE workspace_id = ${ws} AND "to" IN (${emails})`),
    run(sql`DELETE FROM email_suppressions WHERE workspace_id = ${ws} AND email IN (${emails})`),
    run(sql`DELETE FROM sandbox_outbox WHERE workspace_id = ${ws} AND ("to" IN (${emails}) OR "to" IN (${phones}))`),
    run(sql`DELETE FROM idempotency_keys WHERE workspace_id = ${ws} AND instr(response_body, ${contactId}) > 0`),
    run(sql`DELETE FROM contact_merge_requests WHERE workspace_id = ${ws} AND (target_contact_id = ${contactId} OR other_contact_id = ${contactId})`),
    ...['contact_identifiers', 'contact_activities', 'contact_notes', 'contact_tag_links', 'contact_group_links', 'event_attendances', 'newsletter_subscriptions', 'newsletter_deliveries', 'form_submissions'].map(
      (table) => run(sql`DELETE FROM ${owned(table)}`),
    ),
    scrub('consent_ledger', 'evidence = NULL'),
    scrub('messages', 'text = NULL, media = NULL'),
    scrub('bookings', "invitee_name = '', invitee_email = '', invitee_phone = NULL, notes = NULL, cancellation_reason = NULL"),
    scrub('payments', 'note = NULL, metadata = NULL'),
    scrub('payment_entries', 'note = NULL, credit_document = NULL'),
    scrub('payment_requests', 'document = NULL'),
    scrub('orders', 'note = NULL, metadata = NULL'),
    scrub('order_refunds', 'reason = NULL'),
    scrub('deals', 'note = NULL'),
    // Last: the row itself (its triggers clear the search indexes and the stored list answers).
    rawAll<{ id: string }>(ctx.db, sql`DELETE FROM contacts WHERE workspace_id = ${ws} AND id = ${contactId} RETURNING id`),
  ];
  const results = await runBatch(ctx.db, statements);
  const erased = results[results.length - 1] as { id: string }[];
  if (erased.length === 0) throw SharedErrors.contactNotFound();
  ctx.events.committedAfter([{ id: eventId, workspaceId: ws, type: 'contact.deleted', data: {}, createdAt: now }]);
  return { id: contactId, erased_at: now };
}
