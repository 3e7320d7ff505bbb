import { and, eq } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { badRequest, httpError } from '../../platform/errors';
import { isUuid } from '../../platform/validation';
import { normalizeEmailStrict, normalizePhone } from './identity';
import { contacts } from './schema';
import { upsertContact } from './service';

export type ContactReference = { contact_id?: string; phone?: string; email?: string; name?: string };
export type ResolvedContact = { id: string; name: string | null; phone: string | null; email: string | null; created: boolean };

const present = (v: string | undefined): v is string => typeof v === 'string' && v.trim() !== '';

/** Batchable read of a contact referenced by id, so callers can fold it into their read batch. */
export const selectReferencedContact = (ctx: ServiceContext, contactId: string) => {
  const id = contactId.toLowerCase();
  return ctx.db
    .select({ id: contacts.id, name: contacts.name, phone: contacts.phone, email: contacts.email })
    .from(contacts)
    .where(and(eq(contacts.workspace_id, ctx.ws.id), eq(contacts.id, isUuid(id) ? id : '')))
    .limit(1);
};

/** The referenced contact from that read; 404 `Contact not found` outside the workspace. */
export function referencedContact(row: Omit<ResolvedContact, 'created'> | undefined): ResolvedContact {
  if (!row) throw httpError(404, 'Contact not found');
  return { ...row, created: false };
}

/**
 * The contact behind a reference other modules receive (deals, payments,
 * bookings, forms). `contact_id` wins (404 `Contact not found` outside the
 * workspace); otherwise the POST /v1/contacts upsert with the phone/email (phone
 * first, email fallback, 409 CONTACT_MERGE_REQUIRED, PHONE_BLACKLISTED, contact
 * cap), the name used only when a contact is created. Neither given: 400 with
 * `opts.missingMessage`.
 */
export async function resolveContactReference(
  ctx: ServiceContext,
  ref: ContactReference,
  opts: { missingMessage: string; source?: string },
): Promise<ResolvedContact> {
  if (ref.contact_id !== undefined && ref.contact_id !== null) {
    return referencedContact((await selectReferencedContact(ctx, String(ref.contact_id)))[0]);
  }
  if (!present(ref.phone) && !present(ref.email)) throw badRequest(opts.missingMessage);
  const input = {
    ...(present(ref.phone) ? { phone: normalizePhone(ref.phone, ctx.ws.defaultCountry) } : {}),
    ...(present(ref.email) ? { email: normalizeEmailStrict(ref.email) } : {}),
  };
  const { row, duplicate } = await upsertContact(ctx, input, {
    source: opts.source ?? 'api',
    createOnly: present(ref.name) ? { name: ref.name.trim().slice(0, 200) } : undefined,
  });
  return { id: row.id, name: row.name, phone: row.phone, email: row.email, created: !duplicate };
}
