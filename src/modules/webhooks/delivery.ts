import { and, eq, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { uuidv7 } from '../../platform/ids';
import { workspaceDb } from '../../platform/shards';
import type { QueueMessageBody } from '../../queue';
import type { DeliveryMessage, Envelope } from './publisher';
import { webhookDeliveries, webhookEndpoints } from './schema';
import { signatureHeaders } from './signing';
import { parseAllowList, unsafeUrlReason } from './url-safety';

/** Seconds to wait after failed attempt n (index n-1): 8 attempts in all, the last wait at the queue's 12 h maximum. */
export const RETRY_DELAYS_SECONDS = [5, 60, 300, 1800, 7200, 21600, 43200];
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
export const DELIVERY_TIMEOUT_MS = 15_000;

type Outcome = { ok: boolean; status: number | null; error: string | null };

async function attempt(url: string, secret: string, event: Envelope, allowHosts: string[]): Promise<Outcome> {
  const unsafe = unsafeUrlReason(url, allowHosts);
  if (unsafe) return { ok: false, status: null, error: `unsafe_url: ${unsafe}` };
  const body = JSON.stringify(event);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'workspace-api-webhooks/1', ...(await signatureHeaders(secret, event.id, body)) },
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
    return { ok: false, status: null, error: timedOut ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : String(err instanceof Error ? err.message : err).slice(0, 500) };
  }
}

/**
 * Queue consumer: one attempt of one (event, endpoint) delivery. The endpoint is
 * read fresh each time, so a deleted or deactivated endpoint gets nothing more;
 * the attempt count lives in `webhook_deliveries`, so it survives re-sent messages.
 */
export async function deliverWebhook(message: Message<QueueMessageBody>, env: Bindings): Promise<void> {
  const { workspace_id: workspaceId, endpoint_id: endpointId, event } = message.body as unknown as DeliveryMessage;
  const db = await workspaceDb(env, workspaceId);
  if (!db) {
    message.ack();
    return;
  }
  const [[endpoint], [prior]] = await db.batch([
    db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, endpointId)))
      .limit(1),
    db
      .select({ state: webhookDeliveries.state, attempts: webhookDeliveries.attempts })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.eventId, event.id), eq(webhookDeliveries.endpointId, endpointId)))
      .limit(1),
  ]);
  if (!endpoint || !endpoint.isActive || (prior && prior.state !== 'retrying')) {
    message.ack();
    return;
  }

  const attempts = (prior?.attempts ?? 0) + 1;
  const outcome = await attempt(endpoint.url, endpoint.secret, event, parseAllowList(env.ALLOW_UNSAFE_WEBHOOK_HOSTS));
  const state = outcome.ok ? 'succeeded' : attempts >= MAX_ATTEMPTS ? 'dead' : 'retrying';
  const delaySeconds = state === 'retrying' ? RETRY_DELAYS_SECONDS[attempts - 1] : null;
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const result = {
    state,
    attempts,
    lastStatus: outcome.status,
    lastError: outcome.error,
    nextAttemptAt: delaySeconds === null ? null : new Date(nowMs + delaySeconds * 1000).toISOString(),
    updatedAt: now,
  } as const;
  // The guard keeps a delivery the endpoint's deletion dropped meanwhile from coming back.
  const written = await db
    .insert(webhookDeliveries)
    .values({ id: uuidv7(), workspaceId, eventId: event.id, eventType: event.type, endpointId, url: endpoint.url, createdAt: now, ...result })
    .onConflictDoUpdate({
      target: [webhookDeliveries.eventId, webhookDeliveries.endpointId],
      set: { ...result, url: endpoint.url },
      setWhere: sql`${webhookDeliveries.state} = 'retrying'`,
    })
    .returning({ id: webhookDeliveries.id });
  if (written.length && delaySeconds !== null) message.retry({ delaySeconds });
  else message.ack();
}
