import { and, eq, sql } from 'drizzle-orm';
import { type Db, nowIso } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { referencedContactExists, ContactErrors } from '../contacts';
import { memberName } from '../workspaces';
import { contactNotes } from './schema';
import { NoteErrors } from './errors';

type NoteRow = typeof contactNotes.$inferSelect;

/** Rich text and mentions exist only in the application: API reads carry them as null. */
export const serializeNote = (n: NoteRow) => ({
  id: n.id,
  workspace_id: n.workspace_id,
  contact_id: n.contact_id,
  author_user_id: n.author_user_id,
  source: n.source,
  body: n.body,
  body_json: null,
  mentioned_user_ids: null,
  conversation_id: null,
  pinned_at: n.pinned_at,
  created_at: n.created_at,
  updated_at: n.updated_at,
});

/** Pinned first (most recently pinned on top), then newest first; one batch with the contact check. */
export async function listNotes(db: Db, workspaceId: string, contactId: string) {
  const [exists, rows] = await db.batch([
    rawAll<{ found: number }>(db, sql`SELECT 1 AS found WHERE ${referencedContactExists(workspaceId, contactId)}`),
    rawAll<NoteRow & { author_name: string | null }>(
      db,
      sql`SELECT n.*, ${memberName(sql`n.workspace_id`, sql`n.author_user_id`)} AS author_name
        FROM contact_notes n WHERE n.workspace_id = ${workspaceId} AND n.contact_id = ${contactId}
        ORDER BY n.pinned_at IS NULL, n.pinned_at DESC, n.created_at DESC, n.id DESC`,
    ),
  ]);
  if (!exists[0]) throw ContactErrors.referenceNotFound();
  return rows.map((r) => ({ ...serializeNote(r), author_name: r.author_name }));
}

/**
 * The insert is guarded by the contact's existence in the workspace: one statement, no read first. A caller
 * that may repeat itself (an automation step retried) names the note's id: the repeat writes nothing.
 */
export async function createNote(
  db: Db,
  workspaceId: string,
  contactId: string,
  input: { body: string; pinned?: boolean },
  origin: { id?: string; source?: string } = {},
) {
  const now = nowIso();
  const note: NoteRow = {
    id: origin.id ?? uuidv7(),
    workspace_id: workspaceId,
    contact_id: contactId,
    author_user_id: null,
    source: origin.source ?? 'api',
    body: input.body,
    pinned_at: input.pinned ? now : null,
    created_at: now,
    updated_at: now,
  };
  const res = await rawRun(
    db,
    sql`INSERT INTO contact_notes (id, workspace_id, contact_id, author_user_id, source, body, pinned_at, created_at, updated_at)
      SELECT ${note.id}, ${workspaceId}, ${contactId}, NULL, ${note.source}, ${note.body}, ${note.pinned_at}, ${now}, ${now}
      WHERE ${referencedContactExists(workspaceId, contactId)}
      ON CONFLICT (id) DO NOTHING`,
  );
  if (!res.meta.changes && !origin.id) throw ContactErrors.referenceNotFound();
  return serializeNote(note);
}

export async function updateNote(db: Db, workspaceId: string, id: string, input: { body?: string; pinned?: boolean }) {
  const set: Record<string, unknown> = { updated_at: nowIso() };
  if (input.body !== undefined) set.body = input.body;
  // Re-pinning a pinned note keeps its place: pinned_at only moves on a pin.
  if (input.pinned === true) set.pinned_at = sql`coalesce(${contactNotes.pinned_at}, ${set.updated_at as string})`;
  if (input.pinned === false) set.pinned_at = null;
  const [row] = await db
    .update(contactNotes)
    .set(set)
    .where(and(eq(contactNotes.workspace_id, workspaceId), eq(contactNotes.id, id)))
    .returning();
  if (!row) throw NoteErrors.notFound();
  return serializeNote(row);
}

export async function deleteNote(db: Db, workspaceId: string, id: string) {
  const rows = await db
    .delete(contactNotes)
    .where(and(eq(contactNotes.workspace_id, workspaceId), eq(contactNotes.id, id)))
    .returning({ id: contactNotes.id });
  if (!rows[0]) throw NoteErrors.notFound();
  return { success: true as const };
}
