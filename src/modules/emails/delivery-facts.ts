import { and, eq, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { guarded, nowIso, runBatch, type Db, type Statement } from '../../platform/d1/db';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import { rawRun } from '../../platform/d1/raw-query';
import { EventSink, publishCommitted, type OutboxEvent } from '../../platform/outbox';
import { type Signal, signalsCommitted } from '../../platform/signals';
import { wroteFor } from '../../platform/d1/floors';
import { findShard, onEveryShard, workspaceDb } from '../../platform/d1/shards';
import type { BounceType, DeliveryType } from '../../providers/email';
import { emailDeliverabilityStatement } from '../contacts';
import { suppressStatement } from '../suppressions';
import { emailSends } from './schema';

type SendRow = typeof emailSends.$inferSelect;

/** One delivery or engagement fact about a send (provider webhook, tracking route or the operator route). */
export type DeliveryFact = { type: DeliveryType; bounceType?: BounceType; reason?: string; url?: string; machine?: boolean };

const COLUMN: Record<DeliveryType, string> = {
  delivered: 'delivered_at',
  bounced: 'bounced_at',
  complained: 'complained_at',
  opened: 'opened_at',
  clicked: 'clicked_at',
};

const ENGAGEMENT: Record<DeliveryType, 'track_opens' | 'track_clicks' | null> = {
  delivered: null,
  bounced: null,
  complained: null,
  opened: 'track_opens',
  clicked: 'track_clicks',
};

/** The event `data` (docs/events.md): optional fields omitted, never null; `metadata` verbatim. */
export function eventData(send: SendRow, fact: DeliveryFact): Record<string, unknown> {
  return {
    send_id: send.id,
    idempotency_key: send.idempotency_key,
    to: send.to,
    ...(fact.reason ? { reason: fact.reason } : {}),
    ...(fact.type === 'bounced' && fact.bounceType ? { bounce_type: fact.bounceType } : {}),
    ...(send.metadata ? { metadata: send.metadata } : {}),
    ...(fact.type === 'opened' ? { machine_open: fact.machine === true } : {}),
    ...(fact.type === 'clicked' ? { url: fact.url ?? '' } : {}),
  };
}

/** Whether a fact about this send becomes a webhook event: `POST /v1/emails` sends only, engagement only when the send opted in. */
export function firesEvent(send: SendRow, type: DeliveryType): boolean {
  const optIn = ENGAGEMENT[type];
  return send.source === 'api' && send.idempotency_key !== null && (optIn === null || send[optIn]);
}

/** The facts lead scoring weighs, for the contact holding the address, whatever sent the email. */
const SIGNAL: Partial<Record<DeliveryType, Signal>> = { opened: 'email.opened', clicked: 'email.clicked', bounced: 'email.bounced' };

export type RecordedFact = { recorded: boolean; event: string | null };

/** A statement that counts a fact about a send of one source (a campaign's counters), for the fact's own batch. */
export type FactCounter = (db: Db, send: SendRow, fact: DeliveryFact) => Statement | null;
const factCounters = new Map<string, FactCounter>();

/** Modules that send through this path count facts of their own sends (their manifests' `emailFactCounters`, handed in by src/wiring.ts): in the batch that records the fact once, so each is counted once. */
export function registerFactCounter(source: string, counter: FactCounter): void {
  factCounters.set(source, counter);
}

/**
 * Records a fact once per send and type: the first delivered/bounced/
 * complained/opened/clicked stamps its column (a guarded update, so parallel
 * duplicates commit once) and, where `firesEvent`, emits its `email.*` event in
 * the same batch; repeats change nothing. A hard bounce or a complaint adds a
 * workspace suppression (source `provider`) and sets the contact's email
 * deliverability. Sends that never reached a provider (`suppressed`) take no facts.
 */
export async function recordFact(db: Db, events: EventSink, send: SendRow, fact: DeliveryFact): Promise<RecordedFact> {
  if (send.status !== 'sent') return { recorded: false, event: null };
  const now = nowIso();
  const column = sql.raw(COLUMN[fact.type]);
  const extra =
    fact.type === 'bounced'
      ? sql`, bounce_type = ${fact.bounceType ?? null}`
      : fact.type === 'opened'
        ? sql`, machine_open = ${fact.machine === true ? 1 : 0}`
        : fact.type === 'clicked'
          ? sql`, clicked_url = ${fact.url ?? ''}`
          : sql``;
  const statements: Statement[] = [
    rawRun(
      db,
      sql`UPDATE email_sends SET ${column} = ${now}${extra}, updated_at = ${guarded(sql`${column} IS NULL`, sql`${now}`)}
      WHERE workspace_id = ${send.workspace_id} AND id = ${send.id}`,
    ),
  ];
  if ((fact.type === 'bounced' && fact.bounceType === 'hard') || fact.type === 'complained') {
    const reason = fact.type === 'complained' ? 'complaint' : 'bounce';
    statements.push(
      suppressStatement(db, send.workspace_id, send.to, reason, 'provider'),
      emailDeliverabilityStatement(db, send.workspace_id, send.to, fact.type === 'complained' ? 'complained' : 'bounced'),
    );
  }
  const counted = factCounters.get(send.source)?.(db, send, fact);
  if (counted) statements.push(counted);
  const signal = SIGNAL[fact.type];
  if (signal) statements.push(...events.signal(db, send.workspace_id, { email: send.to }, signal));
  const emitted: OutboxEvent[] = [];
  if (firesEvent(send, fact.type)) {
    const { event, statement } = events.emit(db, send.workspace_id, `email.${fact.type}`, eventData(send, fact));
    statements.push(statement);
    emitted.push(event);
  }
  try {
    await runBatch(db, statements);
  } catch (err) {
    if (failedOn(err, guardOf(emailSends.updated_at))) return { recorded: false, event: null };
    throw err;
  }
  events.committedAfter(emitted);
  return { recorded: true, event: emitted[0]?.type ?? null };
}

/** A send of a known workspace by id, or null. */
export async function findSend(db: Db, workspaceId: string, sendId: string): Promise<SendRow | null> {
  const [row] = await db
    .select()
    .from(emailSends)
    .where(and(eq(emailSends.workspace_id, workspaceId), eq(emailSends.id, sendId)))
    .limit(1);
  return row ?? null;
}

/** Where a send lives when only an id is known (operator route, provider webhooks without our tags): every shard is asked at once. */
export async function locateSend(
  env: Bindings,
  match: { id?: string; providerMessageId?: string; workspaceId?: string },
): Promise<{ db: Db; send: SendRow } | null> {
  const where = match.id ? eq(emailSends.id, match.id) : eq(emailSends.provider_message_id, match.providerMessageId ?? '');
  if (match.workspaceId) {
    const db = await workspaceDb(env, match.workspaceId);
    if (db) {
      const [send] = await db
        .select()
        .from(emailSends)
        .where(and(eq(emailSends.workspace_id, match.workspaceId), where))
        .limit(1);
      if (send) return { db, send };
    }
  }
  const found = await onEveryShard(env, async (db, shard) => {
    const [send] = await db.select().from(emailSends).where(where).limit(1);
    // A workspace moving between shards has a copy on both for a while: only its current shard's row is the send.
    if (!send || (await findShard(env, send.workspace_id)) !== shard) return null;
    wroteFor(db, [send.workspace_id]);
    return { db, send };
  });
  for (const result of Object.values(found)) if (result.ok && result.value) return result.value;
  return null;
}

/** Records a fact outside a request's event sink and hands its event on (after the response, through `waitUntil`). */
export async function reportFact(
  env: Bindings,
  db: Db,
  send: SendRow,
  fact: DeliveryFact,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<RecordedFact> {
  const events = new EventSink();
  const out = await recordFact(db, events, send, fact);
  if (events.committed.length) waitUntil(publishCommitted(env, db, events.committed));
  if (events.signalled.size) waitUntil(signalsCommitted(env, events.signalled));
  return out;
}
