import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { inJsonList } from '../../platform/d1/bound-parameters';
import { declaredIndex } from '../../platform/d1/indexes';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { SCALAR_NAMES } from './fields';
import type { ContactRow } from './read';
import { contacts } from './schema';

/** The contact fields a lead-scoring field rule may test: every writable scalar but the score itself (custom fields apart). */
export const SCORED_FIELDS: readonly string[] = SCALAR_NAMES.filter((field) => field !== 'lead_score');

const BY_ID = declaredIndex(contacts, 'contacts_id');

/**
 * The contacts among `ids` as stored, for testing field rules; an id without a contact has no row. The ids' own
 * index is named: left to itself SQLite walks one of the workspace's indexes, every contact it holds.
 */
export const contactsForScoring = (db: Db, workspaceId: string, ids: readonly string[]) =>
  rawAll<ContactRow>(
    db,
    sql`SELECT * FROM ${contacts} INDEXED BY ${sql.raw(BY_ID)} WHERE workspace_id = ${workspaceId} AND ${inJsonList(sql`id`, ids)}`,
  );

/**
 * The engine's scores written to `lead_score`, an engine-owned column while scoring is on: `updated_at` stays and
 * no `contact.updated` fires; a contact whose score is unchanged is not written (its lists stay kept).
 */
export const engineScoresStatement = (db: Db, workspaceId: string, scores: readonly { id: string; score: number }[]) =>
  rawRun(
    db,
    sql`UPDATE ${contacts} INDEXED BY ${sql.raw(BY_ID)} SET lead_score = s.score
      FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS score FROM json_each(${JSON.stringify(scores.map((s) => [s.id, s.score]))})) AS s
      WHERE ${contacts}.workspace_id = ${workspaceId} AND ${contacts}.id = s.id AND ${contacts}.lead_score IS NOT s.score`,
  );

/** A cursor over a workspace's contacts in creation order: `'<created_at>|<id>'`, '' before the first. */
export type ContactCursor = string;

/** The next `limit` contact ids after `after`, walking the workspace's creation-order index; `next` is the cursor past them. */
export async function contactIdsAfter(
  db: Db,
  workspaceId: string,
  after: ContactCursor,
  limit: number,
): Promise<{ ids: string[]; next: ContactCursor }> {
  const [at, id] = after ? after.split('|') : ['', ''];
  const rows = await rawAll<{ id: string; created_at: string }>(
    db,
    sql`SELECT id, created_at FROM ${contacts} WHERE workspace_id = ${workspaceId} AND (created_at > ${at} OR (created_at = ${at} AND id > ${id}))
      ORDER BY created_at, id LIMIT ${limit}`,
  );
  const last = rows.at(-1);
  return { ids: rows.map((r) => r.id), next: last ? `${last.created_at}|${last.id}` : after };
}

/** A contact's stored score, or null when the workspace has no such contact. */
export const storedScore = (db: Db, workspaceId: string, contactId: string) =>
  rawAll<{ lead_score: number | null }>(db, sql`SELECT lead_score FROM ${contacts} WHERE workspace_id = ${workspaceId} AND id = ${contactId}`);

/** The id of the workspace's contact holding an address, as SQL over the placeholders `ws` and `email` (normalized address). */
export const contactIdHoldingEmail = sql`(SELECT id FROM ${contacts} WHERE workspace_id = ${sql.placeholder('ws')} AND email = ${sql.placeholder('email')})`;

/** The same for a phone (E.164), over the placeholders `ws` and `phone`. */
export const contactIdHoldingPhone = sql`(SELECT id FROM ${contacts} WHERE workspace_id = ${sql.placeholder('ws')} AND phone = ${sql.placeholder('phone')})`;
