import { preparedSql } from '../../platform/prepared';
import { sql, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../../platform/db';

/**
 * One contact query shape for every read: the row plus its tag ids, group ids
 * and event attendances as JSON aggregates, so a contact or a whole page is
 * one statement (no per-contact queries).
 */
export const answeredColumns = sql`c.*,
  (SELECT json_group_array(tag_id) FROM (SELECT tag_id FROM contact_tag_links WHERE contact_id = c.id ORDER BY created_at, tag_id)) AS tag_ids,
  (SELECT json_group_array(group_id) FROM (SELECT group_id FROM contact_group_links WHERE contact_id = c.id ORDER BY created_at, group_id)) AS group_ids,
  (SELECT json_group_array(json_object('event_id', event_id, 'status', status, 'registered_at', registered_at, 'attended_at', attended_at))
     FROM (SELECT * FROM event_attendances WHERE contact_id = c.id ORDER BY registered_at)) AS attendances`;

/** `answeredColumns` and whether the phone is blacklisted, which a write's consent rules read (the answer does not carry it). */
export const contactColumns = sql`${answeredColumns},
  EXISTS (SELECT 1 FROM phone_blacklist b WHERE b.workspace_id = c.workspace_id AND b.phone = c.phone) AS phone_blacklisted`;

export type ContactRow = Record<string, unknown> & {
  id: string;
  workspace_id: string;
  phone: string | null;
  email: string | null;
  name: string | null;
  first_name: string | null;
  last_name: string | null;
  block_state: string;
  lead_score: number | null;
  custom_fields: string;
  tag_ids: string;
  group_ids: string;
  whatsapp_consent_state: string | null;
  email_consent_state: string | null;
  whatsapp_complained_at: string | null;
  email_complained_at: string | null;
  phone_blacklisted: number;
};

const contactById = preparedSql<ContactRow>('all', () => sql`SELECT ${contactColumns} FROM contacts c WHERE c.workspace_id = ${sql.placeholder('ws')} AND c.id = ${sql.placeholder('id')}`);

/** Statement reading one contact of the workspace, for a batch (its result: the rows). */
export const selectContact = (db: Db, workspaceId: string, id: string) => contactById.in(db, { ws: workspaceId, id });

const answeredById = preparedSql<ContactRow>('all', () => sql`SELECT ${answeredColumns} FROM contacts c WHERE c.workspace_id = ${sql.placeholder('ws')} AND c.id = ${sql.placeholder('id')}`);

/** One contact of the workspace as answers show it (without what only writes read), read on its own. */
export const readContact = async (db: Db, workspaceId: string, id: string): Promise<ContactRow | undefined> =>
  (await answeredById.all(db, { ws: workspaceId, id }))[0];

/** The contact (`c`) holding, or, history-aware, last holding, an identifier: SQL for a `FROM contacts c` query. */
const holds = (kind: 'phone' | 'email', ws: SQLWrapper, value: SQLWrapper) => sql`c.workspace_id = ${ws} AND c.id = coalesce(
      (SELECT id FROM contacts WHERE workspace_id = ${ws} AND ${sql.raw(kind)} = ${value}),
      (SELECT contact_id FROM contact_identifiers WHERE workspace_id = ${ws} AND kind = ${kind} AND value = ${value} ORDER BY assigned_at DESC, id DESC LIMIT 1))`;

/** Whether any contact holds (or last held) the identifier: false for a NULL value. */
export const identifierHeld = (kind: 'phone' | 'email', ws: SQLWrapper, value: SQLWrapper) => sql`EXISTS (SELECT 1 FROM contacts c WHERE ${holds(kind, ws, value)})`;

const identifierHolder = (kind: 'phone' | 'email') =>
  preparedSql<ContactRow>('all', () => sql`SELECT ${contactColumns} FROM contacts c WHERE ${holds(kind, sql.placeholder('ws'), sql.placeholder('value'))}`);
const identifierHolders = { phone: identifierHolder('phone'), email: identifierHolder('email') };

/** Statement reading the contact holding (or, history-aware, last holding) an identifier. */
export const selectIdentifierHolder = (db: Db, workspaceId: string, kind: 'phone' | 'email', value: string) =>
  identifierHolders[kind].in(db, { ws: workspaceId, value });

/** Columns kept off the response: internal provenance and the raw consent columns (exposed through virtual fields). */
const HIDDEN = new Set([
  'block_source',
  'whatsapp_consent_state',
  'whatsapp_consent_updated_at',
  'whatsapp_complained_at',
  'email_consent_state',
  'email_consent_updated_at',
  'email_complained_at',
  'tag_ids',
  'group_ids',
  'attendances',
  'phone_blacklisted',
]);

export function scoreBand(score: number | null): 'cold' | 'warm' | 'hot' | null {
  if (score === null || score === undefined) return null;
  if (score >= 70) return 'hot';
  if (score >= 30) return 'warm';
  return 'cold';
}

const parseJson = <T>(text: unknown, fallback: T): T => (typeof text === 'string' ? (JSON.parse(text) as T) : fallback);

export function serializeContact(row: ContactRow) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) if (!HIDDEN.has(k)) out[k] = v;
  out.custom_fields = parseJson(row.custom_fields, {});
  out.tags = parseJson<string[]>(row.tag_ids, []);
  out.groups = parseJson<string[]>(row.group_ids, []);
  out.event_attendances = parseJson<unknown[]>(row.attendances, []);
  out.whatsapp_subscribed = row.whatsapp_consent_state === 'subscribed';
  out.email_subscribed = row.email_consent_state === 'subscribed';
  out.score_band = scoreBand(row.lead_score);
  return out;
}

/** Compact projection carried by contact events (Part 3). */
export function contactProjection(row: ContactRow) {
  return {
    id: row.id,
    phone: row.phone,
    email: row.email,
    name: row.name,
    first_name: row.first_name,
    last_name: row.last_name,
    lifecycle_stage: (row.lifecycle_stage as string | null) ?? null,
    source: (row.source as string | null) ?? null,
    block_state: row.block_state,
    lead_score: row.lead_score,
  };
}

