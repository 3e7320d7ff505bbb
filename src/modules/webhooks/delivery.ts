import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { runBatch } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { inFlight } from '../../platform/in-flight';
import { rawAll } from '../../platform/d1/raw-query';
import { BOOKMARK_HEADER, issueBookmark } from '../../platform/d1/bookmarks';
import { workspaceSession } from '../../platform/d1/shards';
import type { QueueMessageBody } from '../../platform/manifest';
import type { DeliveryMessage, Envelope } from './publisher';
import { signatureHeaders } from './signing';
import { parseAllowList, unsafeUrlReason } from './url-safety';

/** Seconds to wait after failed attempt n (index n-1): 8 attempts in all, the last wait at the queue's 12 h maximum. */
export const RETRY_DELAYS_SECONDS = [5, 60, 300, 1800, 7200, 21600, 43200];
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
export const DELIVERY_TIMEOUT_MS = 15_000;

type Outcome = { ok: boolean; status: number | null; error: string | null };

/** `bookmark`: the signed `Bookmark` of the write behind the event, sent along so the receiver can read at least that state. */
async function attempt(url: string, secret: string, event: Envelope, bookmark: string | null, allowHosts: string[]): Promise<Outcome> {
  const unsafe = unsafeUrlReason(url, allowHosts);
  if (unsafe) return { ok: false, status: null, error: `unsafe_url: ${unsafe}` };
  const body = JSON.stringify(event);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'workspace-api-webhooks/1',
        ...(bookmark ? { [BOOKMARK_HEADER]: bookmark } : {}),
        ...(await signatureHeaders(secret, event.id, body)),
      },
      body,
      // A redirect could point anywhere, including addresses the URL check refused.
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, error: null };
    return { ok: false, status: res.status, error: res.status < 400 ? `redirect (HTTP ${res.status}) not followed` : `HTTP ${res.status}` };
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    return {
      ok: false,
      status: null,
      error: timedOut ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : String(err instanceof Error ? err.message : err).slice(0, 500),
    };
  }
}

/**
 * How many POSTs of one batch are in flight at once: the runtime's limit of simultaneous
 * outgoing connections per invocation, so each attempt's timeout runs from its own start
 * instead of from a wait for a free connection.
 */
export const IN_FLIGHT = 6;

type Attempt = { message: Message<QueueMessageBody>; body: DeliveryMessage; url: string; secret: string; attempts: number; bookmark: string | null };

/** Added to a claim's hold beyond its POSTs' time: the batch's reads, signing and the outcome's write. */
const HOLD_MARGIN_MS = 60_000;
/**
 * How long a consumer's claim holds its deliveries: every POST of its batch taking turns for the
 * `IN_FLIGHT` slots, each to its timeout, and the margin. Nothing else attempts or re-sends them
 * meanwhile; a consumer that dies holding them leaves them to the outbox sweep once the hold ends.
 */
const claimHoldMs = (posts: number) => Math.ceil(posts / IN_FLIGHT) * DELIVERY_TIMEOUT_MS + HOLD_MARGIN_MS;
/** A retried message can arrive a moment before the time its row was given (another machine's clock): still due. */
const DUE_SLACK_MS = 1_000;

/**
 * Queue consumer: one attempt of each (event, endpoint) delivery of a batch. Per workspace, one
 * read batch takes the endpoints (read fresh each time, so a deleted or deactivated endpoint
 * gets nothing more) and claims the delivery rows under this batch's hold: a missing row is written
 * `pending` (its endpoint active), an existing one is taken if still `pending` or `retrying`, due,
 * and held by no live consumer's claim; the attempt count lives there, so it survives re-sent
 * messages. A message whose delivery is finished, not yet due or held by another consumer is
 * acknowledged without a request: that delivery is another message's, or the outbox sweep's to
 * send again. The POSTs go out `IN_FLIGHT` at a time, a workspace's endpoints taking turns (no
 * other order is kept); one statement records every outcome once the workspace's attempts ended,
 * only where this batch still holds the row, and lets go of it. A delivery named twice in one
 * batch is attempted once.
 */
export async function deliverWebhooks(messages: Message<QueueMessageBody>[], env: Bindings): Promise<void> {
  const holdMs = claimHoldMs(messages.length);
  const byWorkspace = new Map<string, Message<QueueMessageBody>[]>();
  for (const m of messages) {
    const ws = (m.body as unknown as DeliveryMessage).workspace_id;
    byWorkspace.set(ws, [...(byWorkspace.get(ws) ?? []), m]);
  }
  const slot = inFlight(IN_FLIGHT);
  const allowHosts = parseAllowList(env.ALLOW_UNSAFE_WEBHOOK_HOSTS);
  await Promise.all(
    [...byWorkspace].map(([workspaceId, list]) =>
      deliverFor(env, workspaceId, list, holdMs, (a) => slot(() => attempt(a.url, a.secret, a.body.event, a.bookmark, allowHosts))),
    ),
  );
}

/**
 * Runs `post` over the attempts with their endpoints taking turns (the first of each endpoint, then
 * the second of each, ...), so a slow endpoint holds at most its share of the slots in flight.
 * Outcomes come back in the attempts' order.
 */
async function inTurns(attempts: Attempt[], post: (a: Attempt) => Promise<Outcome>): Promise<Outcome[]> {
  const queues = new Map<string, number[]>();
  attempts.forEach((a, i) => queues.set(a.body.endpoint_id, [...(queues.get(a.body.endpoint_id) ?? []), i]));
  const order: number[] = [];
  for (let round = 0; order.length < attempts.length; round++) for (const q of queues.values()) if (round < q.length) order.push(q[round]);
  const outcomes: Outcome[] = new Array(attempts.length);
  await Promise.all(order.map(async (i) => (outcomes[i] = await post(attempts[i]))));
  return outcomes;
}

/** The `Bookmark` value of each distinct D1 bookmark, signed once. */
async function signedBookmarks(env: Bindings, shard: string, bookmarks: (string | null)[]): Promise<Map<string, string>> {
  const distinct = [...new Set(bookmarks.filter((b): b is string => b !== null))];
  return new Map(await Promise.all(distinct.map(async (b) => [b, await issueBookmark(env, shard, b)] as const)));
}

type Claimed = { event_id: string; endpoint_id: string; attempts: number };

async function deliverFor(
  env: Bindings,
  workspaceId: string,
  messages: Message<QueueMessageBody>[],
  holdMs: number,
  post: (a: Attempt) => Promise<Outcome>,
): Promise<void> {
  const session = await workspaceSession(env, workspaceId);
  if (!session) {
    for (const m of messages) m.ack();
    return;
  }
  const { db } = session;
  const bodies = messages.map((m) => m.body as unknown as DeliveryMessage);
  const claim = uuidv7();
  const claimedAt = Date.now();
  const at = new Date(claimedAt).toISOString();
  const wanted = JSON.stringify(bodies.map((b) => ({ id: uuidv7(), e: b.event.id, t: b.event.type, p: b.endpoint_id })));
  const [endpoints, claimed] = (await runBatch(db, [
    rawAll<{ id: string; url: string; secret: string; is_active: number }>(
      db,
      sql`SELECT id, url, secret, is_active FROM webhook_endpoints WHERE workspace_id = ${workspaceId} AND id IN (SELECT value FROM json_each(${JSON.stringify([...new Set(bodies.map((b) => b.endpoint_id))])}))`,
    ),
    // The claim: a delivery of an active endpoint whose row is missing (the message came before the fan-out wrote it) is
    // written `pending` and held; an existing one is held if still to make, due, and held by no consumer.
    rawAll<Claimed>(
      db,
      sql`WITH wanted AS MATERIALIZED (SELECT value ->> 'id' AS id, value ->> 'e' AS e, value ->> 't' AS t, value ->> 'p' AS p FROM json_each(${wanted}))
        INSERT INTO webhook_deliveries (id, workspace_id, event_id, event_type, endpoint_id, url, state, attempts, held_until, held_by, created_at, updated_at)
        SELECT wanted.id, ${workspaceId}, wanted.e, wanted.t, e.id, e.url, 'pending', 0, ${new Date(claimedAt + holdMs).toISOString()}, ${claim}, ${at}, ${at}
        FROM wanted JOIN webhook_endpoints e ON e.id = wanted.p AND e.workspace_id = ${workspaceId} AND e.is_active = 1 WHERE 1
        ON CONFLICT (event_id, endpoint_id) DO UPDATE SET held_until = excluded.held_until, held_by = excluded.held_by
        WHERE webhook_deliveries.workspace_id = ${workspaceId} AND webhook_deliveries.state IN ('pending', 'retrying')
          AND (webhook_deliveries.held_by IS NULL OR webhook_deliveries.held_until <= ${at})
          AND (webhook_deliveries.next_attempt_at IS NULL OR webhook_deliveries.next_attempt_at <= ${new Date(claimedAt + DUE_SLACK_MS).toISOString()})
        RETURNING event_id, endpoint_id, attempts`,
    ),
  ])) as [{ id: string; url: string; secret: string; is_active: number }[], Claimed[]];
  const endpointOf = new Map(endpoints.map((e) => [e.id, e]));
  const key = (eventId: string, endpointId: string) => `${eventId} ${endpointId}`;
  const claimedOf = new Map(claimed.map((c) => [key(c.event_id, c.endpoint_id), c]));
  // A message without the bookmark of its write gets this read's: the read came after the write, so it is at least as new.
  const writtenAt = (body: DeliveryMessage) => body.bookmark ?? session.bookmark();
  const signed = await signedBookmarks(env, session.shard, bodies.map(writtenAt));
  const attempts: Attempt[] = [];
  const taken = new Set<string>();
  messages.forEach((message, i) => {
    const body = bodies[i];
    const k = key(body.event.id, body.endpoint_id);
    const endpoint = endpointOf.get(body.endpoint_id);
    const row = claimedOf.get(k);
    if (!row || !endpoint?.is_active || taken.has(k)) return void message.ack();
    taken.add(k);
    attempts.push({
      message,
      body,
      url: endpoint.url,
      secret: endpoint.secret,
      attempts: row.attempts + 1,
      bookmark: signed.get(writtenAt(body) ?? '') ?? null,
    });
  });
  if (attempts.length === 0) return;

  const outcomes = await inTurns(attempts, post);
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const rows = attempts.map((a, i) => {
    const outcome = outcomes[i];
    const state = outcome.ok ? 'succeeded' : a.attempts >= MAX_ATTEMPTS ? 'dead' : 'retrying';
    const delay = state === 'retrying' ? RETRY_DELAYS_SECONDS[a.attempts - 1] : null;
    return {
      e: a.body.event.id,
      p: a.body.endpoint_id,
      u: a.url,
      s: state,
      n: a.attempts,
      ls: outcome.status,
      le: outcome.error,
      at: delay === null ? null : new Date(nowMs + delay * 1000).toISOString(),
      delay,
    };
  });
  // Only where this batch still holds the row: a delivery its endpoint's deletion dropped meanwhile stays dropped.
  const written = await rawAll<{ event_id: string; endpoint_id: string }>(
    db,
    sql`WITH outcome AS MATERIALIZED (SELECT value ->> 'e' AS e, value ->> 'p' AS p, value ->> 'u' AS u, value ->> 's' AS s, value ->> 'n' AS n,
        value ->> 'ls' AS ls, value ->> 'le' AS le, value ->> 'at' AS at FROM json_each(${JSON.stringify(rows)}))
      UPDATE webhook_deliveries SET url = outcome.u, state = outcome.s, attempts = outcome.n, last_status = outcome.ls, last_error = outcome.le,
        next_attempt_at = outcome.at, updated_at = ${now}, held_until = NULL, held_by = NULL
      FROM outcome WHERE webhook_deliveries.event_id = outcome.e AND webhook_deliveries.endpoint_id = outcome.p
        AND webhook_deliveries.workspace_id = ${workspaceId} AND webhook_deliveries.held_by = ${claim} AND webhook_deliveries.state IN ('pending', 'retrying')
      RETURNING event_id, endpoint_id`,
  );
  const recorded = new Set(written.map((w) => key(w.event_id, w.endpoint_id)));
  attempts.forEach((a, i) => {
    const { delay } = rows[i];
    if (delay !== null && recorded.has(key(a.body.event.id, a.body.endpoint_id))) a.message.retry({ delaySeconds: delay });
    else a.message.ack();
  });
}
