import { and, eq, sql, type SQLWrapper } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import type { Statement } from '../../platform/d1/db';
import { planOf, runOperation, type ReadPlan } from '../../platform/d1/operation';
import { prepared } from '../../platform/d1/prepared';
import type { OutboxEvent } from '../../platform/outbox';
import type { RowGuard } from '../../platform/d1/row-guard';
import { isUuid } from '../../platform/validation';
import { normalizeEmailStrict, normalizePhone } from './identity';
import { contacts } from './schema';
import { identityTaken, planUpsert } from './service';
import type { ApiError } from '../../platform/errors';
import { ContactErrors } from './errors';

export type ContactReference = { contact_id?: string; phone?: string; email?: string; name?: string };
export type ResolvedContact = { id: string; name: string | null; phone: string | null; email: string | null; created: boolean };

const present = (v: string | undefined): v is string => typeof v === 'string' && v.trim() !== '';

/** Batchable read of a contact referenced by id, so callers can fold it into their read batch. */
export const selectReferencedContact = (ctx: ServiceContext, contactId: string) => {
  const id = contactId.toLowerCase();
  return referencedRead.in(ctx.db, { ws: ctx.ws.id, id: isUuid(id) ? id : '' });
};

const referencedRead = prepared((db) =>
  db
    .select({ id: contacts.id, name: contacts.name, phone: contacts.phone, email: contacts.email })
    .from(contacts)
    .where(and(eq(contacts.workspace_id, sql.placeholder('ws')), eq(contacts.id, sql.placeholder('id'))))
    .limit(1),
);

/** Whether the workspace has the contact: the condition of that read, for a write guarded on it (see `RowGuard`). */
export const referencedContactExists = (ws: SQLWrapper | string, id: SQLWrapper | string) =>
  sql`EXISTS (SELECT 1 FROM ${contacts} WHERE ${contacts.workspace_id} = ${ws} AND ${contacts.id} = ${id})`;

/** The referenced contact from that read; 404 `Contact not found` outside the workspace. */
export function referencedContact(row: Omit<ResolvedContact, 'created'> | undefined): ResolvedContact {
  if (!row) throw ContactErrors.referenceNotFound();
  return { ...row, created: false };
}

/** The contact a reference resolves to, and what the caller's write batch must carry for it. */
export type PlannedContact = {
  contact: ResolvedContact;
  /** The contact's create or update, to go first in the caller's write batch. */
  writes: Statement[];
  /** To announce once that batch committed. */
  events: OutboxEvent[];
  /** The error a failure of that batch stands for (the contact cap), else the failure itself. */
  mapError: (err: unknown) => unknown;
};

/** The reads a reference needs, for the caller's read batch, and the continuation over their results. */
export type ContactReferencePlan = ReadPlan<PlannedContact> & {
  /**
   * The contact of a create the caller sends along with the reads (one round trip): a
   * `contact_id`'s (the caller's own guard checks it exists), or for a phone/email the contact's
   * create, written only if no contact has the identity and `also` holds as the batch runs (the
   * caller's conditions that do not need the contact, so the contact is created only with what
   * the caller creates). Null when neither can be.
   */
  along: (also?: RowGuard) => ContactAlong | null;
};

/** The contact id a create sent along with its reads is for, and the statements and events creating that contact, if any. */
export type ContactAlong = {
  id: string;
  statements: Statement[];
  events: OutboxEvent[];
};

const unchanged = (err: unknown) => err;

/**
 * The contact behind a reference other modules receive (deals, payments,
 * bookings, forms), planned so the caller pays no round trip of its own:
 * `contact_id` wins (404 `Contact not found` outside the workspace); otherwise
 * the POST /v1/contacts upsert with the phone/email (phone first, email
 * fallback, 409 CONTACT_MERGE_REQUIRED, PHONE_BLACKLISTED, contact cap), the
 * name used only when a contact is created. Neither given: 400 with
 * `opts.missing`. Writing the contact in the caller's batch makes it
 * atomic with the caller's change; a failure of that batch on the contact's
 * identity keys (`identityTaken`) means a parallel write won, and the caller
 * retries from a new plan.
 */
export function planContactReference(
  ctx: ServiceContext,
  ref: ContactReference,
  opts: { missing: () => ApiError; source?: string },
): ContactReferencePlan {
  if (ref.contact_id !== undefined && ref.contact_id !== null) {
    const referenced = planOf(
      { contact: selectReferencedContact(ctx, String(ref.contact_id)) },
      async (read) => ({ contact: referencedContact(read.contact[0]), writes: [], events: [], mapError: unchanged }),
      identityTaken,
    );
    return {
      ...referenced,
      along: () => {
        const id = String(ref.contact_id).toLowerCase();
        return isUuid(id) ? { id, statements: [], events: [] } : null;
      },
    };
  }
  if (!present(ref.phone) && !present(ref.email)) throw opts.missing();
  const input = {
    ...(present(ref.phone) ? { phone: normalizePhone(ref.phone, ctx.ws.defaultCountry) } : {}),
    ...(present(ref.email) ? { email: normalizeEmailStrict(ref.email) } : {}),
  };
  const upsert = planUpsert(ctx, input, {
    source: opts.source ?? 'api',
    createOnly: present(ref.name) ? { name: ref.name.trim().slice(0, 200) } : undefined,
  });
  return {
    reads: upsert.reads,
    lostRace: identityTaken,
    resolve: async (results) => {
      const { row, duplicate, writes, events, mapError } = await upsert.resolve(results);
      return { contact: { id: row.id, name: row.name, phone: row.phone, email: row.email, created: !duplicate }, writes, events, mapError };
    },
    along: (also) => {
      const created = upsert.createAlong(also);
      return created && { id: created.row.id, statements: created.statements, events: created.events };
    },
  };
}

/** `planContactReference` run on its own: one read batch, then one write batch when the contact changes. */
export function resolveContactReference(
  ctx: ServiceContext,
  ref: ContactReference,
  opts: { missing: () => ApiError; source?: string },
): Promise<ResolvedContact> {
  return runOperation(ctx, {
    reads: { planned: planContactReference(ctx, ref, opts) },
    decide: async (read, batch) => {
      const planned = await read.planned();
      return batch.join(planned).answerWith(planned.contact);
    },
  });
}
