import { preparedSql } from '../../platform/d1/prepared';
import { getTableColumns, sql, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { contactPhoneBlacklisted } from '../blacklist';
import { contacts } from './schema';

const TAG_IDS = 'SELECT json_group_array(tag_id) FROM (SELECT tag_id FROM contact_tag_links WHERE contact_id = c.id ORDER BY created_at, tag_id)';
const GROUP_IDS =
  'SELECT json_group_array(group_id) FROM (SELECT group_id FROM contact_group_links WHERE contact_id = c.id ORDER BY created_at, group_id)';
const ATTENDANCES = `SELECT json_group_array(json_object('event_id', event_id, 'status', status, 'registered_at', registered_at, 'attended_at', attended_at))
     FROM (SELECT * FROM event_attendances WHERE contact_id = c.id ORDER BY registered_at)`;

/**
 * One contact query shape for every read: the row plus its tag ids, group ids
 * and event attendances as JSON aggregates, so a contact or a whole page is
 * one statement (no per-contact queries).
 */
export const answeredColumns = sql.raw(`c.*, (${TAG_IDS}) AS tag_ids, (${GROUP_IDS}) AS group_ids, (${ATTENDANCES}) AS attendances`);

/** `answeredColumns` and whether the phone is blacklisted, which a write's consent rules read (the answer does not carry it). */
export const contactColumns = sql`${answeredColumns},
  ${contactPhoneBlacklisted} AS phone_blacklisted`;

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

const contactById = preparedSql<ContactRow, 'all'>(
  'all',
  () => sql`SELECT ${contactColumns} FROM contacts c WHERE c.workspace_id = ${sql.placeholder('ws')} AND c.id = ${sql.placeholder('id')}`,
);

/** Statement reading one contact of the workspace, for a batch (its result: the rows). */
export const selectContact = (db: Db, workspaceId: string, id: string) => contactById.in(db, { ws: workspaceId, id });

const answerById = preparedSql<{ answer: string }>(
  'all',
  () => sql`SELECT ${answeredJson} AS answer FROM contacts c WHERE c.workspace_id = ${sql.placeholder('ws')} AND c.id = ${sql.placeholder('id')}`,
);

/** One contact of the workspace as its answer's JSON text (`answeredJson`), read on its own. */
export const readContactAnswer = async (db: Db, workspaceId: string, id: string): Promise<string | undefined> =>
  (await answerById.all(db, { ws: workspaceId, id }))[0]?.answer;

/** The contact (`c`) holding, or, history-aware, last holding, an identifier: SQL for a `FROM contacts c` query. */
const holds = (kind: 'phone' | 'email', ws: SQLWrapper, value: SQLWrapper) => sql`c.workspace_id = ${ws} AND c.id = coalesce(
      (SELECT id FROM contacts WHERE workspace_id = ${ws} AND ${sql.raw(kind)} = ${value}),
      (SELECT contact_id FROM contact_identifiers WHERE workspace_id = ${ws} AND kind = ${kind} AND value = ${value} ORDER BY assigned_at DESC, id DESC LIMIT 1))`;

/** Whether any contact holds (or last held) the identifier: false for a NULL value. */
export const identifierHeld = (kind: 'phone' | 'email', ws: SQLWrapper, value: SQLWrapper) =>
  sql`EXISTS (SELECT 1 FROM contacts c WHERE ${holds(kind, ws, value)})`;

const identifierHolder = (kind: 'phone' | 'email') =>
  preparedSql<ContactRow, 'all'>(
    'all',
    () => sql`SELECT ${contactColumns} FROM contacts c WHERE ${holds(kind, sql.placeholder('ws'), sql.placeholder('value'))}`,
  );
const identifierHolders = { phone: identifierHolder('phone'), email: identifierHolder('email') };

/** Statement reading the contact holding (or, history-aware, last holding) an identifier. */
export const selectIdentifierHolder = (db: Db, workspaceId: string, kind: 'phone' | 'email', value: string) =>
  identifierHolders[kind].in(db, { ws: workspaceId, value });

/** The holder's id per value first (each a probe by key), then the contacts by primary key. */
const identifierHoldersOf = (kind: 'phone' | 'email') =>
  preparedSql<ContactRow & { held_value: string }, 'all'>('all', () => {
    const ws = sql.placeholder('ws');
    return sql`WITH h AS MATERIALIZED (SELECT j.value AS held_value, coalesce(
        (SELECT id FROM contacts WHERE workspace_id = ${ws} AND ${sql.raw(kind)} = j.value),
        (SELECT contact_id FROM contact_identifiers WHERE workspace_id = ${ws} AND kind = ${kind} AND value = j.value ORDER BY assigned_at DESC, id DESC LIMIT 1)
      ) AS holder FROM json_each(${sql.placeholder('values')}) j)
      SELECT h.held_value, ${contactColumns} FROM h JOIN contacts c ON c.id = h.holder AND c.workspace_id = ${ws}`;
  });
const identifierHoldersMany = { phone: identifierHoldersOf('phone'), email: identifierHoldersOf('email') };

/** `selectIdentifierHolder` for many values in one statement: a row per value some contact holds or held, `held_value` naming it. */
export const selectIdentifierHolders = (db: Db, workspaceId: string, kind: 'phone' | 'email', values: string[]) =>
  identifierHoldersMany[kind].in(db, { ws: workspaceId, values: JSON.stringify(values) });

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

/**
 * A REAL as JSON.stringify writes it: SQLite writes a whole REAL with `.0` (`50.0`), JavaScript
 * without (`50`); both parse to the same number, and the answers read the same either way.
 */
const realAsJson = (column: string) =>
  `iif(abs(${column}) < 9007199254740992 AND ${column} = CAST(${column} AS INTEGER), CAST(${column} AS INTEGER), ${column})`;

/** The answer's fields (`serializeContact`) as [key, SQL value] pairs over `c`, in its order. */
const ANSWER_FIELDS: [string, string][] = [
  ...Object.values(getTableColumns(contacts))
    .filter((column) => !HIDDEN.has(column.name))
    .map((column): [string, string] => {
      const ref = `c.${column.name}`;
      if (column.name === 'custom_fields') return [column.name, `json(${ref})`];
      return [column.name, column.columnType === 'SQLiteReal' ? realAsJson(ref) : ref];
    }),
  ['tags', `json((${TAG_IDS}))`],
  ['groups', `json((${GROUP_IDS}))`],
  ['event_attendances', `json((${ATTENDANCES}))`],
  ['whatsapp_subscribed', `json(iif(c.whatsapp_consent_state = 'subscribed', 'true', 'false'))`],
  ['email_subscribed', `json(iif(c.email_consent_state = 'subscribed', 'true', 'false'))`],
  ['score_band', "CASE WHEN c.lead_score IS NULL THEN NULL WHEN c.lead_score >= 70 THEN 'hot' WHEN c.lead_score >= 30 THEN 'warm' ELSE 'cold' END"],
];

/** Key-value pairs per `json_object` call: SQLite builds may cap a function's arguments at 127. */
const PAIRS_PER_OBJECT = 40;

/**
 * The contact `c` as its answer's JSON text, written by SQLite: a page of 50 wide rows is then
 * one short string per contact, with no rows to decode, map and serialize again in the Worker
 * (about half of a computed contact page's CPU). The objects of several `json_object` calls are
 * spliced into one by trimming the braces between them, so each chunk must end on a value that
 * does not end with `}` itself (not `custom_fields`).
 */
export const answeredJson = (() => {
  const chunks: [string, string][][] = [];
  for (let start = 0; start < ANSWER_FIELDS.length; ) {
    let end = Math.min(start + PAIRS_PER_OBJECT, ANSWER_FIELDS.length);
    if (end < ANSWER_FIELDS.length && ANSWER_FIELDS[end - 1][0] === 'custom_fields') end--;
    chunks.push(ANSWER_FIELDS.slice(start, end));
    start = end;
  }
  const objects = chunks.map((pairs) => `json_object(${pairs.map(([key, value]) => `'${key}', ${value}`).join(', ')})`);
  const inner = objects.map((object, i) => {
    const open = i === 0 ? object : `ltrim(${object}, '{')`;
    return i === objects.length - 1 ? open : `rtrim(${open}, '}')`;
  });
  return sql.raw(inner.join(" || ',' || "));
})();

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

/** The keys of the compact projection contact events carry (docs/events.md), in order, with explicit nulls. */
const PROJECTION_KEYS = [
  'id',
  'phone',
  'email',
  'name',
  'first_name',
  'last_name',
  'lifecycle_stage',
  'source',
  'block_state',
  'lead_score',
] as const;

type Projection = Record<(typeof PROJECTION_KEYS)[number], unknown>;

export function contactProjection(row: ContactRow): Projection {
  return Object.fromEntries(PROJECTION_KEYS.map((key) => [key, row[key] ?? null])) as Projection;
}

/** `contactProjection` of the contact `c` as SQL (a JSON object), for event data a batch computes. */
export const contactProjectionSql = sql.raw(
  `json_object(${PROJECTION_KEYS.map((key) => `'${key}', ${getTableColumns(contacts)[key].columnType === 'SQLiteReal' ? realAsJson(`c.${key}`) : `c.${key}`}`).join(', ')})`,
);

/** The contact of placeholder `contact` as its event projection (JSON), for event data a batch computes. */
export const contactProjectionOfPlaceholder = sql`(SELECT ${contactProjectionSql} FROM ${contacts} c WHERE c.id = ${sql.placeholder('contact')})`;

/** The same for a contact named by value. */
export const contactProjectionOf = (workspaceId: string, contactId: string) =>
  sql`(SELECT ${contactProjectionSql} FROM ${contacts} c WHERE c.workspace_id = ${workspaceId} AND c.id = ${contactId})`;

/** One custom field of a contact (`key` is a checked custom-field key), as a scalar subquery. */
export const contactCustomField = (workspaceId: string, contactId: string, key: string) =>
  sql`(SELECT json_extract(c.custom_fields, ${`$."${key}"`}) FROM ${contacts} c WHERE c.workspace_id = ${workspaceId} AND c.id = ${contactId})`;

/** The id of the contact holding an email address now (addresses are stored lower-cased), as a scalar subquery. */
export const contactIdWithEmail = (workspaceId: string, email: string) =>
  sql`(SELECT c.id FROM ${contacts} c WHERE c.workspace_id = ${workspaceId} AND c.email = ${email.trim().toLowerCase()})`;
