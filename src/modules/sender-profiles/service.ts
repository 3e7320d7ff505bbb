import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { nowIso } from '../../platform/d1/db';
import { uniqueOn } from '../../platform/d1/constraints';
import { runOperation } from '../../platform/d1/operation';
import { uuidv7 } from '../../platform/ids';
import { envelope, parsePaging } from '../../platform/list';
import { prepared } from '../../platform/d1/prepared';
import type { ServiceContext } from '../../platform/context';
import { senderProfiles } from './schema';

type Row = typeof senderProfiles.$inferSelect;

export const fromEmail = (r: Pick<Row, 'local_part' | 'domain'>) => `${r.local_part}@${r.domain}`;

/** The API row: From identity, provider, default flag, domain linkage and `verified`; never DKIM/DNS material. */
export function serializeSenderProfile(r: Row) {
  return {
    id: r.id,
    workspace_id: r.workspace_id,
    from_name: r.from_name,
    from_email: fromEmail(r),
    reply_to: r.reply_to,
    provider: r.provider,
    is_default: r.is_default,
    sending_domain: r.domain,
    domain_status: r.domain_verified ? ('verified' as const) : ('pending' as const),
    verified: r.domain_verified,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export async function listSenderProfiles(ctx: ServiceContext, query: { limit?: string; offset?: string }) {
  const paging = parsePaging(query, { limit: 25, cap: 100 });
  const where = eq(senderProfiles.workspace_id, ctx.ws.id);
  const [counted, rows] = await ctx.db.batch([
    ctx.db.select({ n: sql<number>`count(*)` }).from(senderProfiles).where(where),
    ctx.db
      .select()
      .from(senderProfiles)
      .where(where)
      .orderBy(desc(senderProfiles.created_at), desc(senderProfiles.id))
      .limit(paging.limit)
      .offset(paging.offset),
  ]);
  return envelope(rows.map(serializeSenderProfile), counted[0].n, paging);
}

const namedSender = prepared((db) =>
  db
    .select()
    .from(senderProfiles)
    .where(and(eq(senderProfiles.workspace_id, sql.placeholder('ws')), eq(senderProfiles.id, sql.placeholder('id'))))
    .limit(1),
);
const defaultSender = prepared((db) =>
  db
    .select()
    .from(senderProfiles)
    .where(and(eq(senderProfiles.workspace_id, sql.placeholder('ws')), eq(senderProfiles.domain_verified, true)))
    .orderBy(desc(senderProfiles.is_default), senderProfiles.created_at)
    .limit(1),
);

/**
 * The sender a send uses, as one statement for the caller's read batch: the
 * named profile of this workspace (another workspace's id finds nothing), or
 * else the workspace's verified profiles, the default one first.
 */
export const senderCandidates = (db: Db, workspaceId: string, profileId: string | undefined) =>
  profileId ? namedSender.in(db, { ws: workspaceId, id: profileId }) : defaultSender.in(db, { ws: workspaceId });

/** The same, read on its own: at most one row. */
export const readSender = (db: Db, workspaceId: string, profileId: string | undefined): Promise<Row[]> =>
  profileId ? namedSender.all(db, { ws: workspaceId, id: profileId }) : defaultSender.all(db, { ws: workspaceId });

export type SenderProfileRow = Row;

export type SenderProfileInput = {
  from_name: string;
  from_email: string;
  reply_to?: string | null;
  domain_verified: boolean;
  is_default: boolean;
  provider?: string;
};

/** A parallel create of a default took the flag first (the partial unique index over the default per workspace). */
const anotherDefault = uniqueOn(senderProfiles.workspace_id);

/** Operator create. A new default takes the flag from the previous one in the same batch (the partial unique index settles races). */
export function createSenderProfile(ctx: ServiceContext, input: SenderProfileInput, provider: string) {
  const at = input.from_email.lastIndexOf('@');
  const now = nowIso();
  const row: Row = {
    id: uuidv7(),
    workspace_id: ctx.ws.id,
    from_name: input.from_name,
    local_part: input.from_email.slice(0, at),
    domain: input.from_email.slice(at + 1).toLowerCase(),
    reply_to: input.reply_to ?? null,
    provider,
    is_default: input.is_default,
    domain_verified: input.domain_verified,
    created_at: now,
    updated_at: now,
  };
  return runOperation(ctx, {
    reads: {},
    decide: (_, batch) => {
      if (input.is_default) {
        batch.write(
          ctx.db
            .update(senderProfiles)
            .set({ is_default: false, updated_at: now })
            .where(and(eq(senderProfiles.workspace_id, ctx.ws.id), eq(senderProfiles.is_default, true))),
        );
      }
      return batch.write(ctx.db.insert(senderProfiles).values(row)).answerWith(serializeSenderProfile(row));
    },
    lostRaceOn: [anotherDefault],
  });
}
