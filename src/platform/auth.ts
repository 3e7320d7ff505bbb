import { and, eq, isNull } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import type { Bindings } from '../env';
import type { AppEnv } from './app-env';
import { apiKeys, shards, workspaces } from './control-schema';
import { DEFAULT_RATE_LIMITS } from './workspace';
import type { Db } from './d1/db';
import { renderError } from './errors';
import { SharedErrors } from './shared-errors';
import { cachedKeyLookUp } from './key-cache';
import { featureRefusal } from './features';
import { sha256Hex } from './ids';
import { failedKeys } from './failed-auth';
import { budgetHeaders, enforce, ipLimit, refusedUntil, spendLeasedToken, type Spend } from './rate-limit';
import { schemaBehind } from './d1/schema-version';
import { controlDb, controlReplica } from './d1/shards';

export const API_KEY_PREFIX = 'wsk_';
const KEY_SHAPE = /^wsk_[A-Za-z0-9_-]{32,128}$/;

type KeyMatch = { keyId: string; workspace: typeof workspaces.$inferSelect; shardSchema: string | null };

/** A key's look-up: the cache tiers (./key-cache.ts), else the nearest control-plane replica, else the primary. */
function findActiveKey(env: Bindings, keyHash: string, waitUntil: (work: Promise<unknown>) => void): Promise<KeyMatch | null> {
  // The nearest replica answers most look-ups; a key it does not know yet (created a moment ago) is asked of the primary.
  const lookUp = async () => (await lookUpKey(controlReplica(env), keyHash)) ?? (await lookUpKey(controlDb(env), keyHash));
  return cachedKeyLookUp(keyHash, lookUp, waitUntil);
}

async function lookUpKey(db: Db, keyHash: string): Promise<KeyMatch | null> {
  const rows = await db
    .select({ keyId: apiKeys.id, workspace: workspaces, shardSchema: shards.schema })
    .from(apiKeys)
    .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
    // The shard's recorded schema rides along: a write to a shard not yet migrated is refused before it starts.
    .leftJoin(shards, eq(shards.binding, workspaces.shard))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .limit(1);
  return rows[0] ?? null;
}

const isEmailSend = (method: string, path: string) => method === 'POST' && /^\/v1\/emails\/?$/.test(path);
const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/**
 * Bearer-key authentication, API-access check, rate limits and feature gate.
 * Both limits spend tokens this isolate leased from the subject's limiter
 * (./rate-limit.ts), and the next lease is asked for before they run out: about
 * one call per ten requests, which the requests rarely wait for. The per-IP
 * spend runs alongside the key look-up (one D1 query, skipped for a cached
 * key); the key's needs the key's limit. Read replication changes nothing here:
 * where a read starts its session comes from the workspace's floor (./consistency.ts).
 *
 * A read (GET, HEAD) does not wait for a lease call of the key before it runs: its
 * queries overlap the call, and its answer leaves only once the limit admitted
 * it; a refused read answers the same 429 as before, and anything it would
 * write waits for the verdict (./write-gate.ts), so it changes nothing.
 *
 * Invalid keys are counted per source IP (./failed-auth.ts): an IP that spent
 * that budget is refused before its key is hashed or looked up.
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header('authorization') ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw header.trim() && !/^Bearer(\s|$)/i.test(header) ? SharedErrors.notBearerScheme() : SharedErrors.missingApiKey();
  const ip = c.req.header('cf-connecting-ip') ?? 'unknown';
  const spent = failedKeys.known(ip);
  if (spent) throw spent;
  const token = match[1];
  const keyHash = KEY_SHAPE.test(token) ? await sha256Hex(token) : null;
  const emailSend = isEmailSend(c.req.method, c.req.path);

  const waitUntil = (work: Promise<unknown>) => c.executionCtx.waitUntil(work);
  const [found, ipSpend] = await Promise.all([
    keyHash ? findActiveKey(c.env, keyHash, waitUntil) : Promise.resolve(null),
    spendLeasedToken(c.env, `ip:${ip}`, ipLimit(c.env), waitUntil),
  ]);
  const ipRefusedUntil = refusedUntil(ipSpend);
  if (!found) {
    // An IP over its budget is refused whatever its key; a failure within it is counted against the IP's failed attempts.
    enforce([{ refusedUntil: ipRefusedUntil, limit: ipLimit(c.env), label: 'per source IP' }]);
    throw (await failedKeys.fail(c.env, ip)) ?? SharedErrors.invalidApiKey();
  }
  const ws = found.workspace;
  const perKey = emailSend
    ? (ws.rateLimits.emails_per_minute ?? DEFAULT_RATE_LIMITS.emails_per_minute)
    : (ws.rateLimits.per_key_per_minute ?? DEFAULT_RATE_LIMITS.per_key_per_minute);
  const counted = spendLeasedToken(c.env, `${emailSend ? 'email' : 'key'}:${keyHash}`, perKey, waitUntil);
  // Most requests spend a token the isolate holds: their verdict is known now, and nothing needs to overlap it.
  const known = counted instanceof Promise ? null : counted;
  const admit = (result: Spend | null): Record<string, string> => {
    const budget = result ? budgetHeaders(perKey, result) : {};
    enforce(
      [
        { refusedUntil: refusedUntil(result), limit: perKey, label: emailSend ? 'per API key for POST /v1/emails' : 'per API key' },
        { refusedUntil: ipRefusedUntil, limit: ipLimit(c.env), label: 'per source IP' },
      ],
      budget,
    );
    return budget;
  };
  // A limit refusal answers before these, as it did when every request waited for the limiter.
  const forbidden = ws.apiAccess
    ? (featureRefusal(ws, c.req.method, c.req.path) ??
      (!isRead(c.req.method) && schemaBehind(found.shardSchema) ? SharedErrors.schemaUpgrading() : null))
    : SharedErrors.noApiAccess();
  c.set('workspace', ws);
  c.set('apiKeyId', found.keyId);

  if (known || forbidden !== null || ipRefusedUntil !== null || !isRead(c.req.method)) {
    const result = await counted;
    const budget = admit(result);
    if (forbidden !== null) throw forbidden;
    await next();
    setHeaders(c.res, budget);
    return;
  }

  const admission = Promise.resolve(counted).then(admit);
  admission.catch(() => undefined);
  c.set('admission', admission);
  let failure: { error: unknown } | null = null;
  try {
    await next();
  } catch (error) {
    failure = { error };
  }
  let budget: Record<string, string>;
  try {
    budget = await admission;
  } catch (refused) {
    // The refusal replaces the answer whole (no header of the read's answer carries over).
    c.res = undefined;
    c.res = renderError(refused, c);
    return;
  }
  if (failure) throw failure.error;
  setHeaders(c.res, budget);
};

const setHeaders = (res: Response, headers: Record<string, string>) => {
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
};
