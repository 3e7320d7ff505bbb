import { type AnyColumn, and, desc, eq, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { prepared, preparedList, testedOnRows } from '../../platform/d1/prepared';
import { envelope, parsePaging } from '../../platform/list';
import { SharedErrors } from '../../platform/shared-errors';
import { EmailErrors } from './errors';
import { emailSends, SEND_STATUSES } from './schema';
import { type EmailSentListInput, FACT_TYPES, type FactType, SENT_PAGING } from './sent-dto';

type SendRow = typeof emailSends.$inferSelect;

/**
 * Only `POST /v1/emails` sends are this resource: campaigns, newsletters and booking mail have
 * their own reads. Written as a literal so SQLite can use the partial indexes built on it.
 */
const apiSends = sql`${emailSends.source} = 'api'`;

const FACT_AT: Record<FactType, (r: SendRow) => string | null> = {
  delivered: (r) => r.delivered_at,
  bounced: (r) => r.bounced_at,
  complained: (r) => r.complained_at,
  opened: (r) => r.opened_at,
  clicked: (r) => r.clicked_at,
};

function factsOf(r: SendRow) {
  const facts = FACT_TYPES.flatMap((type) => {
    const at = FACT_AT[type](r);
    if (!at) return [];
    const detail =
      type === 'bounced'
        ? { bounce_type: r.bounce_type }
        : type === 'opened'
          ? { machine: r.machine_open === true }
          : type === 'clicked'
            ? { url: r.clicked_url ?? '' }
            : {};
    return [{ type, at, ...detail }];
  });
  // Facts stamped in the same millisecond keep the order of FACT_TYPES (the sort is stable).
  return facts.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

export function serializeSent(r: SendRow) {
  const events = factsOf(r);
  return {
    id: r.id,
    status: r.status,
    to: r.to,
    from: r.from,
    subject: r.subject,
    sender_profile_id: r.sender_profile_id,
    // A send of `POST /v1/emails` always has its key; only internal sends have none.
    idempotency_key: r.idempotency_key ?? '',
    provider_message_id: r.provider_message_id,
    reason: r.status === 'suppressed' ? ('suppressed' as const) : null,
    metadata: r.metadata ?? null,
    tracking: { opens: r.track_opens, clicks: r.track_clicks },
    last_event: events.length ? events[events.length - 1].type : r.status,
    events,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

const sentById = prepared((db) =>
  db
    .select()
    .from(emailSends)
    .where(and(eq(emailSends.workspace_id, sql.placeholder('ws')), eq(emailSends.id, sql.placeholder('id')), apiSends))
    .limit(1),
);

/** `GET /v1/emails/{id}`: another workspace's send, or one not made through `POST /v1/emails`, is not found. */
export async function getSentEmail(ctx: ServiceContext, id: string) {
  const row = await sentById.get(ctx.db, { ws: ctx.ws.id, id: id.toLowerCase() });
  if (!row) throw EmailErrors.notFound();
  return serializeSent(row);
}

type Filter = AnyColumn | ((value: SQLWrapper) => SQL);

const listOf = <F extends string>(filters: Record<F, Filter>, order: SQL[]) =>
  preparedList<F, SendRow>(filters, (_, where, ws) => {
    const scoped = and(eq(emailSends.workspace_id, ws), apiSends, where);
    return {
      count: (db) => db.select({ total: sql<number>`count(*)` }).from(emailSends).where(scoped),
      page: (db) =>
        db
          .select()
          .from(emailSends)
          .where(scoped)
          .orderBy(...order),
    };
  });

/** The send-time bounds on `at`, and the key (its unique index finds at most one send, whatever else is asked). */
const boundsAndKey = (at: AnyColumn | SQL) => ({
  since: (since: SQLWrapper) => sql`${at} >= ${since}`,
  until: (until: SQLWrapper) => sql`${at} < ${until}`,
  idempotency_key: emailSends.idempotency_key,
});

/** Walks `email_sends_api_created` (or `email_sends_api_status`) newest first, stopping at the page's end. */
const newestFirst = listOf({ ...boundsAndKey(emailSends.created_at), status: emailSends.status }, [desc(emailSends.created_at), desc(emailSends.id)]);

/**
 * A recipient's sends are few: read from `email_sends_workspace_to` and sorted, rather than an index of
 * every API send walked for the few that match (unary plus: no other index serves the time, the status or the order).
 */
const unindexedAt = sql`+${emailSends.created_at}`;
const byRecipient = listOf({ ...boundsAndKey(unindexedAt), to: emailSends.to, status: testedOnRows(emailSends.status) }, [
  desc(unindexedAt),
  desc(sql`+${emailSends.id}`),
]);

const given = (v: string | undefined): v is string => v !== undefined && v !== '';

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A send-time bound as stored (UTC, milliseconds); a date alone or a local time would leave the zone to guess: 400. */
function instant(name: 'since' | 'until', raw: string): string {
  const text = raw.trim();
  const ms = ISO_INSTANT.test(text) ? Date.parse(text) : Number.NaN;
  const [y, m, d] = text.slice(0, 10).split('-').map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  if (Number.isNaN(ms) || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) throw EmailErrors.invalidDateFilter({ name });
  return new Date(ms).toISOString();
}

/** `GET /v1/emails`: newest first; the filters AND together; malformed values 400. Total and page in one statement. */
export async function listSentEmails(ctx: ServiceContext, query: EmailSentListInput) {
  const paging = parsePaging(query, SENT_PAGING);
  const values: Record<string, unknown> = { ws: ctx.ws.id, limit: paging.limit, offset: paging.offset };
  if (given(query.status)) {
    if (!(SEND_STATUSES as readonly string[]).includes(query.status))
      throw SharedErrors.notOneOf({ name: 'status', values: SEND_STATUSES.join(', ') });
    values.status = query.status;
  }
  if (given(query.to)) values.to = query.to.trim().toLowerCase();
  if (given(query.since)) values.since = instant('since', query.since);
  if (given(query.until)) values.until = instant('until', query.until);
  if (given(query.idempotency_key)) values.idempotency_key = query.idempotency_key;
  const { total, rows } = await ('to' in values ? byRecipient : newestFirst)(ctx.db, values);
  return envelope(rows.map(serializeSent), total, paging);
}
