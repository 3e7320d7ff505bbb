import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { type Db, nowIso } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { rawRun } from '../../platform/d1/raw-query';
import { envelope, parsePaging } from '../../platform/list';
import { compileContactFilter, contactsMatching, emailEligibleContacts, type ContactTarget } from '../contacts';
import { AUDIENCE_KINDS, audiences, type AudienceKind } from './schema';
import { SharedErrors } from '../../platform/shared-errors';

type Row = typeof audiences.$inferSelect;

/** Summary columns and the advisory size cache; the definition is never returned. */
export const serializeAudience = (r: Row) => ({
  id: r.id,
  workspace_id: r.workspace_id,
  name: r.name,
  kind: r.kind,
  last_count: r.last_count,
  last_counted_at: r.last_counted_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export async function listAudiences(ctx: ServiceContext, query: { kind?: string; limit?: string; offset?: string }) {
  const kind = query.kind === undefined || query.kind === '' ? undefined : query.kind;
  if (kind !== undefined && !(AUDIENCE_KINDS as readonly string[]).includes(kind))
    throw SharedErrors.notOneOf({ name: 'kind', values: AUDIENCE_KINDS.join(', ') });
  const paging = parsePaging(query, { limit: 25, cap: 100 });
  const where = and(eq(audiences.workspace_id, ctx.ws.id), kind ? eq(audiences.kind, kind as AudienceKind) : undefined);
  const [counted, rows] = await ctx.db.batch([
    ctx.db.select({ n: sql<number>`count(*)` }).from(audiences).where(where),
    ctx.db.select().from(audiences).where(where).orderBy(desc(audiences.created_at), desc(audiences.id)).limit(paging.limit).offset(paging.offset),
  ]);
  return envelope(rows.map(serializeAudience), counted[0].n, paging);
}

export type AudienceInput = { name: string } & ({ kind: 'dynamic'; filters: Record<string, unknown> } | { kind: 'static'; contact_ids: string[] });

/** Operator create: a dynamic audience's tree is validated by the contact filter compiler (400 `Invalid filter: ...`). */
export async function createAudience(db: Db, workspaceId: string, input: AudienceInput) {
  const definition: ContactTarget =
    input.kind === 'dynamic' ? { filters: input.filters } : { contact_ids: [...new Set(input.contact_ids.map((id) => id.toLowerCase()))] };
  if ('filters' in definition) compileContactFilter({ wsId: workspaceId }, definition.filters);
  const now = nowIso();
  const row: Row = {
    id: uuidv7(),
    workspace_id: workspaceId,
    name: input.name,
    kind: input.kind,
    definition,
    last_count: null,
    last_counted_at: null,
    created_at: now,
    updated_at: now,
  };
  await db.insert(audiences).values(row);
  return serializeAudience(row);
}

/**
 * The one audience resolver (campaigns reuse it): the audience's contacts
 * narrowed to the email-eligible baseline, counted, with one page of
 * recipients in id order (`after`: the last id of the previous page). Refreshes
 * the advisory `last_count`/`last_counted_at`. Null for an unknown (or another
 * workspace's) audience.
 */
export async function resolveAudience(
  env: Bindings,
  ctx: ServiceContext,
  audienceId: string,
  page: { limit: number; after?: string } = { limit: 0 },
) {
  const [audience] = await ctx.db
    .select()
    .from(audiences)
    .where(and(eq(audiences.workspace_id, ctx.ws.id), eq(audiences.id, audienceId)))
    .limit(1);
  if (!audience) return null;
  const resolved = await emailEligibleContacts(env, ctx, audience.definition, page);
  const now = nowIso();
  await ctx.db
    .update(audiences)
    .set({ last_count: resolved.count, last_counted_at: now })
    .where(and(eq(audiences.workspace_id, ctx.ws.id), eq(audiences.id, audienceId)));
  return {
    audience: serializeAudience({ ...audience, last_count: resolved.count, last_counted_at: now }),
    count: resolved.count,
    recipients: resolved.contacts,
  };
}

/**
 * An audience of the workspace as a condition over contacts `c`, for a query
 * that applies its own eligibility baseline (WhatsApp campaigns); null for an
 * unknown (or another workspace's) audience. A dynamic audience's filter values
 * travel in their own CTE inside the subquery, apart from the caller's.
 */
export async function audienceContactCondition(db: Db, workspaceId: string, audienceId: string): Promise<SQL | null> {
  const [audience] = await db
    .select({ definition: audiences.definition })
    .from(audiences)
    .where(and(eq(audiences.workspace_id, workspaceId), eq(audiences.id, audienceId)))
    .limit(1);
  if (!audience) return null;
  const target = audience.definition;
  if ('contact_ids' in target) return sql`c.id IN (SELECT value FROM json_each(${JSON.stringify(target.contact_ids)}))`;
  return contactsMatching(workspaceId, target.filters);
}

/**
 * A contact merge re-keys static audiences (the contacts module puts this in
 * its merge batch): the absorbed id becomes the surviving one, listed once.
 */
export const rekeyStaticAudiences = (db: Db, workspaceId: string, fromContactId: string, toContactId: string) =>
  rawRun(
    db,
    sql`UPDATE audiences SET definition = json_object('contact_ids', (SELECT json_group_array(DISTINCT CASE WHEN value = ${fromContactId} THEN ${toContactId} ELSE value END)
        FROM json_each(audiences.definition, '$.contact_ids'))), updated_at = ${nowIso()}
      WHERE workspace_id = ${workspaceId} AND kind = 'static'
        AND EXISTS (SELECT 1 FROM json_each(audiences.definition, '$.contact_ids') WHERE value = ${fromContactId})`,
  );
