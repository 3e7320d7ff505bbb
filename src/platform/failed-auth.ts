import type { HitResult } from '../durable-objects/rate-limiter';
import type { Bindings } from '../env';
import type { ApiError } from './errors';
import { SharedErrors } from './shared-errors';
import { instanceCache } from './instance-cache';
import { hit, limitVar, peek, WINDOW_MS } from './rate-limit';

/** Source IPs an isolate remembers a spent budget for, at most. */
const REMEMBERED_MAX = 10_000;

/**
 * Failed authentication counted per source IP and minute: API keys
 * (RATE_LIMIT_FAILED_AUTH_PER_IP_PER_MINUTE, default 30) and the operator token
 * (RATE_LIMIT_OPERATOR_FAILED_AUTH_PER_IP_PER_MINUTE, default 10). Once an IP has
 * failed that often, its requests answer 429 until the minute ends, before any key
 * look-up or token compare. An isolate that counted the budget spent remembers
 * it and refuses without asking the limiter; another isolate learns it from the
 * limiter at the IP's next failure (or, for the operator token, at its next call).
 *
 * An unreachable limiter fails open: the attempt is answered as it is (401 or
 * admitted). Keys are 256 random bits, so a guess never succeeds and the budget
 * only spares the key table; an outage of the operator token's counter admits
 * guesses at the token only while it lasts, where failing closed would lock the
 * operator out.
 */
export class FailedAttempts {
  /** Spares the limiter a call per refused attempt while an IP keeps trying. */
  private readonly spentUntil;

  constructor(
    private readonly subjectPrefix: string,
    private readonly limitOf: (env: Bindings) => number,
    memory = `${subjectPrefix}-refusals`,
  ) {
    this.spentUntil = instanceCache<number>(memory, { max: REMEMBERED_MAX });
  }

  /** The 429 for an IP this isolate knows spent its budget in the current minute; null otherwise. */
  known(ip: string, now = Date.now()): ApiError | null {
    const until = this.spentUntil.get(ip);
    if (until === undefined) return null;
    if (until > now) return this.refusal(until, now);
    this.spentUntil.delete(ip);
    return null;
  }

  /** Counts a failed attempt: null to answer the failure as it is, a 429 when the budget was already spent. */
  async fail(env: Bindings, ip: string): Promise<ApiError | null> {
    return this.judge(env, ip, await hit(env, `${this.subjectPrefix}:${ip}`, WINDOW_MS), 'counted');
  }

  /** Whether a successful attempt may pass, counting nothing: a 429 while failures have spent the budget. */
  async admit(env: Bindings, ip: string): Promise<ApiError | null> {
    return this.judge(env, ip, await peek(env, `${this.subjectPrefix}:${ip}`, WINDOW_MS), 'asked');
  }

  private judge(env: Bindings, ip: string, window: HitResult | null, how: 'counted' | 'asked'): ApiError | null {
    if (!window) return null;
    const limit = this.limitOf(env);
    if (window.count < limit) return null;
    this.spentUntil.set(ip, window.resetAt);
    // The attempt that spends the last of the budget is still answered as it is.
    return how === 'counted' && window.count === limit ? null : this.refusal(window.resetAt, Date.now());
  }

  private refusal(resetAt: number, now: number): ApiError {
    const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
    const error = SharedErrors.failedAuthLimit({ seconds: retryAfter });
    error.headers['Retry-After'] = String(retryAfter);
    return error;
  }
}

/** Failed API keys on `/v1`. */
export const failedKeys = new FailedAttempts('failed-auth', (env) => limitVar(env.RATE_LIMIT_FAILED_AUTH_PER_IP_PER_MINUTE, 30));

/** Wrong operator tokens on `/admin/v1`. */
export const failedOperatorTokens = new FailedAttempts('failed-operator-auth', (env) =>
  limitVar(env.RATE_LIMIT_OPERATOR_FAILED_AUTH_PER_IP_PER_MINUTE, 10),
);
