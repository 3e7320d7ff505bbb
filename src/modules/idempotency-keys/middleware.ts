import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../platform/app-env';
import { carryingEveryWrite } from '../../platform/d1/carried';
import { apiErrorOf } from '../../platform/errors';
import { SharedErrors } from '../../platform/shared-errors';
import { carriesFile } from '../../platform/uploads';
import { requestFingerprint } from './fingerprint';
import { claimKey, recoveryPoint, releaseKey, storeAnswer } from './service';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1 to 255 printable ASCII characters (space to tilde). */
const KEY_SHAPE = /^[\x20-\x7e]{1,255}$/;

/** Answers that leave the key usable: a server failure, a refused key, a spent limit. */
const notKept = (status: number) => status >= 500 || status === 401 || status === 429;

/**
 * `Idempotency-Key` on every `/v1` POST. Without the header nothing changes. With it, the first
 * request claims the key in the workspace and runs; its answer (unless a 5xx, 401 or 429) is
 * stored before it leaves, and the same request again gets that answer verbatim with
 * `Idempotent-Replayed: true`, running nothing. The same key with another method, path or body
 * answers 422; while the first still runs, 409 `IDEMPOTENCY_KEY_IN_USE` with `Retry-After: 1`.
 * The claim is one insert on the shard, so of parallel requests with one key exactly one runs.
 *
 * The request runs on a handle whose every write carries the key's recovery point
 * (`recoveryPoint`): the batch committing its effect marks the key `committed` in the same
 * transaction. A claim that outlived its lease is taken over only while nothing was committed; one
 * found `committed` past its lease (the request died between its effect and its answer) answers
 * 409 `IDEMPOTENCY_KEY_ANSWER_LOST` and runs nothing. A request whose claim was taken over before
 * it wrote has every write refused (409 `IDEMPOTENCY_KEY_IN_USE`). A request that committed and
 * then failed unexpectedly (a 500) keeps its key at the recovery point; a deliberate 5xx (a
 * catalogue error such as a provider's refusal, whose route makes a retry safe) gives it back.
 */
export const idempotentPosts: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== 'POST') return next();
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return next();
  if (!KEY_SHAPE.test(key)) throw SharedErrors.invalidIdempotencyKey();
  const workspaceId = c.var.workspace.id;
  const fingerprint = await requestFingerprint(c.req.method, c.req.path, carriesFile(c) ? await c.req.text() : await c.req.json());
  const db = c.var.db;
  const claimed = await claimKey(db, workspaceId, key, fingerprint);
  if (!claimed.owned) {
    const { row } = claimed;
    if (row.fingerprint !== fingerprint) throw SharedErrors.idempotencyKeyReused();
    if (row.state === 'committed' && claimed.lapsed) throw SharedErrors.idempotencyKeyAnswerLost();
    if (row.state !== 'done') throw SharedErrors.idempotencyKeyInUse();
    return new Response(row.responseBody, {
      status: row.responseStatus!,
      headers: { ...(row.responseType ? { 'Content-Type': row.responseType } : {}), [REPLAYED_HEADER]: 'true' },
    });
  }
  c.set('db', carryingEveryWrite(db, recoveryPoint(db, workspaceId, key, claimed.claim)));
  try {
    await next();
  } finally {
    c.set('db', db);
  }
  const res = c.res;
  if (notKept(res.status)) {
    await releaseKey(db, workspaceId, key, claimed.claim, { committed: c.error !== undefined && !apiErrorOf(c.error) });
    return;
  }
  const body = await res.clone().text();
  await storeAnswer(db, workspaceId, key, claimed.claim, { status: res.status, body, type: res.headers.get('Content-Type') });
};
