import { eq, sql } from 'drizzle-orm';
import { nowIso, type Db, type Statement } from '../../platform/d1/db';
import { prepared, preparedSql } from '../../platform/d1/prepared';
import { writeThenRead } from '../../platform/d1/write-then-read';
import { base64url, randomToken } from '../../platform/ids';
import { loadMeetingType } from './meeting-types';
import { bookingSettings } from './schema';
import { BookingErrors } from './errors';

const newEmbedKey = () => `bk_${base64url(randomToken(24))}`;

export type BookingSettings = typeof bookingSettings.$inferSelect;

const settingsInsert = preparedSql(
  'run',
  () =>
    sql`INSERT INTO ${bookingSettings} (workspace_id, embed_key, link_secret, created_at, updated_at)
      VALUES (${sql.placeholder('ws')}, ${sql.placeholder('key')}, ${sql.placeholder('secret')}, ${sql.placeholder('now')}, ${sql.placeholder('now')}) ON CONFLICT DO NOTHING`,
);
const settingsById = prepared((db) =>
  db
    .select()
    .from(bookingSettings)
    .where(eq(bookingSettings.workspaceId, sql.placeholder('ws'))),
);

/** For a caller's batch: the workspace's booking settings (none before their first use). */
export const settingsRead = (db: Db, workspaceId: string) => settingsById.in(db, { ws: workspaceId });

/** For a caller's batch: the settings' first-use insert (a parallel first use may have won it); `settingsRead` after it reads them. */
export const settingsFirstUse = (db: Db, workspaceId: string): Statement =>
  settingsInsert.in(db, { ws: workspaceId, key: newEmbedKey(), secret: base64url(randomToken(32)), now: nowIso() });

/** The workspace's booking settings (the `bk_` embed key, the link secret), created on first use: one batch. */
export async function bookingSettingsOf(db: Db, workspaceId: string): Promise<BookingSettings> {
  const { settings } = await writeThenRead(db, [settingsFirstUse(db, workspaceId)], { settings: settingsRead(db, workspaceId) });
  return settings[0];
}

/** Issues a new `bk_` key; the old one stops working at once. */
export async function rotateEmbedKey(db: Db, workspaceId: string) {
  await bookingSettingsOf(db, workspaceId);
  const embedKey = newEmbedKey();
  await db.update(bookingSettings).set({ embedKey, updatedAt: nowIso() }).where(eq(bookingSettings.workspaceId, workspaceId));
  return { embed_key: embedKey };
}

export const bookingPageUrl = (base: string, workspaceId: string, slug: string) => `${base}/book/${workspaceId}/${encodeURIComponent(slug)}`;

const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** `GET /v1/meeting-types/{id}/embed`: the publishable key, the hosted page and a two-line snippet. */
export async function embedMaterial(db: Db, workspaceId: string, id: string, base: string) {
  const found = await loadMeetingType(db, workspaceId, id);
  if (!found) throw BookingErrors.meetingTypeNotFound();
  const settings = await bookingSettingsOf(db, workspaceId);
  const pageUrl = bookingPageUrl(base, workspaceId, found.row.slug);
  const snippet = [
    `<div data-booking-embed="${attr(found.row.slug)}" data-workspace="${attr(workspaceId)}" data-key="${attr(settings.embedKey)}"></div>`,
    `<script src="${attr(base)}/book/embed.js" async></script>`,
  ].join('\n');
  return { workspace_ref: workspaceId, slug: found.row.slug, embed_key: settings.embedKey, page_url: pageUrl, snippet_html: snippet };
}
