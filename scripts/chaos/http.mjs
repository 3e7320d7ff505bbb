// HTTP to the runtime under test. A request that finds the runtime down (refused, reset, timed
// out) throws a `DownError`; `retrying` repeats a call until the runtime answers below 500, for
// reads and for writes that are safe to send again.

export class DownError extends Error {
  constructor(method, path, cause) {
    super(`${method} ${path}: runtime unreachable (${cause?.cause?.code ?? cause?.name ?? cause?.message ?? cause})`);
    this.down = true;
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/**
 * One request. `body` is sent as JSON unless `raw` (a string, with `contentType`) is given.
 * Answers `{status, headers, body, text}`; `body` is the parsed JSON when the answer is JSON.
 */
export async function request(base, method, path, { token, body, raw, contentType, headers = {}, timeoutMs = 60_000 } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  let payload;
  if (raw !== undefined) {
    payload = raw;
    h['content-type'] = contentType ?? 'text/plain';
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    h['content-type'] = 'application/json';
  }
  let res;
  let text;
  try {
    res = await fetch(`${base}${path}`, { method, headers: h, body: payload, signal: AbortSignal.timeout(timeoutMs) });
    text = await res.text();
  } catch (err) {
    throw new DownError(method, path, err);
  }
  let parsed = null;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Repeats `call()` while the runtime is down or answers 5xx (or 429), up to `forMs`; returns the first other answer. */
export async function retrying(call, { forMs = 600_000, pauseMs = 1000, what = 'request' } = {}) {
  const until = Date.now() + forMs;
  let last;
  for (;;) {
    try {
      const res = await call();
      if (res.status < 500 && res.status !== 429) return res;
      last = `${res.status} ${res.text.slice(0, 200)}`;
    } catch (err) {
      if (!err.down) throw err;
      last = err.message;
    }
    if (Date.now() > until) throw new Error(`${what}: no answer below 500 within ${Math.round(forMs / 1000)} s (last: ${last})`);
    await sleep(pauseMs);
  }
}

/** `retrying`, and a 2xx is required: anything else throws with the answer. */
export async function must(call, what) {
  const res = await retrying(call, { what });
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}

/** Runs `fn` over `items`, at most `limit` at once; resolves to the results in order. */
export async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * A client of the runtime: `admin(method, path, body)` and `api(key)(method, path, body)` for
 * calls that must succeed (retried while the runtime is down), plus `raw` for one attempt.
 */
export function client(base, adminToken) {
  const admin = (method, path, body) =>
    must(() => request(base, method, `/admin/v1${path}`, { token: adminToken, body }), `${method} /admin/v1${path}`);
  const api = (key) => (method, path, body) => must(() => request(base, method, `/v1${path}`, { token: key, body }), `${method} /v1${path}`);
  const raw = (method, path, options) => request(base, method, path, options);
  return { base, adminToken, admin, api, raw };
}
