import { and, eq } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { contacts } from './schema';

/**
 * The contact identity other modules' list rows carry (`contact_name`,
 * `contact_phone`, `contact_email`), joined in the list's one query. The
 * contacts module owns the table; callers only spread these pieces.
 */
export const contactIdentityColumns = { contactName: contacts.name, contactPhone: contacts.phone, contactEmail: contacts.email };

export type ContactIdentity = { contactName: string | null; contactPhone: string | null; contactEmail: string | null };

/** The `leftJoin` arguments for a row's contact, scoped to the row's workspace too. */
export const contactIdentityJoin = (contactId: SQLiteColumn, workspaceId: SQLiteColumn) =>
  [contacts, and(eq(contacts.id, contactId), eq(contacts.workspace_id, workspaceId))] as const;

export const serializeContactIdentity = (r: ContactIdentity) => ({ contact_name: r.contactName, contact_phone: r.contactPhone, contact_email: r.contactEmail });
