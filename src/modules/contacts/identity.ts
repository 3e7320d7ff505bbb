import { sql } from 'drizzle-orm';
import type { Db, Statement } from '../../platform/d1/db';
import { SharedErrors } from '../../platform/shared-errors';
import { ContactErrors } from './errors';
import { uuidv7 } from '../../platform/ids';
import { toE164 } from '../../platform/phone';
import { preparedSql } from '../../platform/d1/prepared';
import { guardable, type RowGuard } from '../../platform/d1/row-guard';

export function normalizePhone(raw: string, defaultCountry: string): string {
  const e164 = toE164(raw, defaultCountry);
  if (!e164) throw SharedErrors.invalidPhone();
  return e164;
}

export const normalizeEmail = (raw: string) => raw.trim().toLowerCase();

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmailStrict(raw: string): string {
  const email = normalizeEmail(raw);
  if (!EMAIL_SHAPE.test(email) || email.length > 255) throw ContactErrors.invalidEmail();
  return email;
}

const identifierRecord = guardable((condition) =>
  preparedSql(
    'run',
    () => sql`INSERT INTO contact_identifiers (id, workspace_id, contact_id, kind, value, assigned_at)
  SELECT j.value ->> 'id', ${sql.placeholder('ws')}, ${sql.placeholder('contact')}, j.value ->> 'kind', j.value ->> 'value', ${sql.placeholder('at')}
  FROM json_each(${sql.placeholder('rows')}) j WHERE ${condition}
  ON CONFLICT (workspace_id, kind, value, contact_id) DO UPDATE SET assigned_at = excluded.assigned_at`,
  ),
);

type Identifiers = { phone?: unknown; email?: unknown };

/**
 * Records that a contact holds its phone and/or email (the string values of
 * `ids`; none: no statement). Re-acquiring one refreshes its recency, so
 * history-aware resolution always finds the most recent holder. One statement
 * for both, for the caller's batch.
 */
export function recordIdentifiers(db: Db, workspaceId: string, contactId: string, ids: Identifiers, now: string, guard?: RowGuard): Statement[] {
  const rows = (['phone', 'email'] as const).flatMap((kind) => (typeof ids[kind] === 'string' ? [{ id: uuidv7(), kind, value: ids[kind] }] : []));
  if (rows.length === 0) return [];
  return [identifierRecord.in(db, { ws: workspaceId, contact: contactId, at: now, rows: JSON.stringify(rows) }, guard)];
}
