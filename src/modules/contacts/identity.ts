import { sql } from 'drizzle-orm';
import type { Db, Statement } from '../../platform/db';
import { badRequest } from '../../platform/errors';
import { uuidv7 } from '../../platform/ids';
import { toE164 } from '../../platform/phone';
import { contactIdentifiers } from './schema';

export function normalizePhone(raw: string, defaultCountry: string): string {
  const e164 = toE164(raw, defaultCountry);
  if (!e164) throw badRequest(['phone must be a valid phone number']);
  return e164;
}

export const normalizeEmail = (raw: string) => raw.trim().toLowerCase();

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmailStrict(raw: string): string {
  const email = normalizeEmail(raw);
  if (!EMAIL_SHAPE.test(email) || email.length > 255) throw badRequest(['email must be a valid email address']);
  return email;
}

/**
 * Records that a contact holds an identifier. Re-acquiring one refreshes its
 * recency, so history-aware resolution always finds the most recent holder.
 */
export function recordIdentifier(db: Db, workspaceId: string, contactId: string, kind: 'phone' | 'email', value: string, now: string): Statement {
  return db
    .insert(contactIdentifiers)
    .values({ id: uuidv7(), workspace_id: workspaceId, contact_id: contactId, kind, value, assigned_at: now })
    .onConflictDoUpdate({
      target: [contactIdentifiers.workspace_id, contactIdentifiers.kind, contactIdentifiers.value, contactIdentifiers.contact_id],
      set: { assigned_at: sql`excluded.assigned_at` },
    });
}
