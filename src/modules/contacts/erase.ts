import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { writeThenRead } from '../../platform/d1/write-then-read';
import { uuidv7 } from '../../platform/ids';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { eventOutbox } from '../../platform/schema';
import { contactExtensions } from './extensions';
import { ownPersonalData } from './personal-data';
import { contactIdentifiers, contacts } from './schema';
import { ContactErrors } from './errors';

/**
 * Erasure of one contact's personal data (a data subject's right to be forgotten), in one D1
 * batch: it happens whole or not at all, and writes racing it land either before it (and are
 * erased with the rest) or after it (and find no contact). Each module erases its own rows
 * (`erase` of its contact records, ./extensions.ts).
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
  const { db } = ctx;
  const ws = ctx.ws.id;
  const now = nowIso();
  const eventId = uuidv7();
  const addresses = { emails: onlyHeld(ws, contactId, 'email'), phones: onlyHeld(ws, contactId, 'phone') };
  const writes = [
    // First, while the row and its history still exist: every module's rows, some found by address.
    ...[...contactExtensions().records, ownPersonalData].flatMap((records) => records.erase?.(db, ws, contactId, addresses) ?? []),
    rawRun(
      db,
      sql`INSERT INTO ${eventOutbox} (id, workspace_id, type, data, created_at, enqueued_at, attempts)
      SELECT ${eventId}, workspace_id, 'contact.deleted', json_object('contact_id', id, 'phone', phone, 'email', email, 'name', name), ${now}, NULL, 0
      FROM ${contacts} WHERE workspace_id = ${ws} AND id = ${contactId}`,
    ),
  ];
  // Last: the row itself (its triggers clear the search indexes and the stored list answers).
  const { erased } = await writeThenRead(db, writes, {
    erased: rawAll<{ id: string }>(db, sql`DELETE FROM ${contacts} WHERE workspace_id = ${ws} AND id = ${contactId} RETURNING id`),
  });
  if (erased.length === 0) throw ContactErrors.referenceNotFound();
  ctx.events.committedAfter([{ id: eventId, workspaceId: ws, type: 'contact.deleted', data: {}, createdAt: now }]);
  return { id: contactId, erased_at: now };
}

/** The contact's addresses of one kind, now or in its history, that no other contact holds now. */
const onlyHeld = (ws: string, contactId: string, kind: 'email' | 'phone') => {
  const column = sql.raw(kind);
  return sql`SELECT ${column} FROM ${contacts} WHERE workspace_id = ${ws} AND id = ${contactId} AND ${column} IS NOT NULL
    UNION SELECT value FROM ${contactIdentifiers} WHERE workspace_id = ${ws} AND contact_id = ${contactId} AND kind = ${kind}
      AND value NOT IN (SELECT ${column} FROM ${contacts} WHERE workspace_id = ${ws} AND id <> ${contactId} AND ${column} IS NOT NULL)`;
};
