// A small closed-loop load driver: `connections` concurrent clients, each
// sending its next request as soon as the previous one answered, for `seconds`.
import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * One keep-alive connection per client, through `node:http`: the driver shares the machine's
 * two cores with the runtime it measures, and `fetch` (undici's WHATWG streams) spent about
 * 1.2-1.8 ms of CPU per request there, this about a third of it; the answer's bytes are read
 * and dropped, as a client would read them.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** `rawBody`: a body sent as is (a CSV file), its content type among `headers`; otherwise `body` goes as JSON. */
function send(base, method, path, headers, body, rawBody) {
  return new Promise((resolve, reject) => {
    const payload = rawBody !== undefined ? Buffer.from(rawBody) : body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const type = rawBody !== undefined ? {} : { 'content-type': 'application/json' };
    const req = httpRequest(
      `${base}${path}`,
      {
        method,
        agent,
        headers: payload === undefined ? headers : { ...headers, ...type, 'content-length': payload.length },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/**
 * `makeRequest(i)` returns `{method, path, body?, rawBody?, before?, headers?}` (its headers over the
 * driver's); answers outside 2xx are counted as errors. `before`, when given, runs first and is not timed (a write the measured request follows).
 */
export async function load({ base, headers, makeRequest, connections = 8, seconds = 5, maxRequests = Infinity, latencies = [] }) {
  const firstOwn = latencies.length;
  let errors = 0;
  let sent = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  async function client() {
    while (performance.now() < deadline && sent < maxRequests) {
      const { method, path, body, rawBody, before, headers: own } = makeRequest(sent++);
      if (before) await before();
      const t0 = performance.now();
      try {
        const status = await send(base, method, path, own ? { ...headers, ...own } : headers, body, rawBody);
        if (status >= 300) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: connections }, client));
  return summarize(latencies.slice(firstOwn), errors, (performance.now() - started) / 1000);
}

function summarize(latencies, errors, elapsedSeconds) {
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    rps: latencies.length / elapsedSeconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/**
 * A route and its floor in alternating slices (`slices` of each, as long as each other), so both
 * are measured under the same machine conditions: on a shared machine the speed drifts over
 * minutes, which a floor measured once at the start would fold into every ratio. The floor gets
 * as many seconds as the route: its p50 is the ratio's other half, and a floor measured half as
 * long moved the ratios of unchanged routes by up to 0.25x between runs. Ten pairs of slices
 * rather than five: a burst of the machine's other load falls into one route or floor slice,
 * and the more pairs share the pooled p50s, the less one such slice moves the ratio.
 *
 * `variants` are the ways the route is measured (the instance's caches on, then off): each
 * slice of the floor is followed by one slice of each variant, `prepare` run before it.
 */
export async function loadAgainstFloor({
  base,
  headers,
  floorHeaders = {},
  makeRequest,
  makeFloorRequest,
  variants = [{}],
  connections = 8,
  seconds = 5,
  slices = 10,
}) {
  const floor = [];
  let floorErrors = 0;
  let floorSeconds = 0;
  let sent = 0;
  const runs = variants.map(() => ({ latencies: [], errors: 0, seconds: 0, sliceRatios: [] }));
  for (let k = 0; k < slices; k++) {
    const f = await load({ base, headers: floorHeaders, makeRequest: makeFloorRequest, connections, seconds: seconds / slices, latencies: floor });
    floorErrors += f.errors;
    floorSeconds += f.requests / f.rps;
    for (const [v, variant] of variants.entries()) {
      if (variant.prepare) await variant.prepare();
      const run = runs[v];
      const r = await load({
        base,
        headers,
        makeRequest: (i) => makeRequest(sent + i),
        connections,
        seconds: seconds / slices,
        latencies: run.latencies,
      });
      sent += r.requests;
      run.errors += r.errors;
      run.seconds += r.requests / r.rps;
      run.sliceRatios.push(r.p50 / f.p50);
    }
  }
  const floorRun = summarize(floor, floorErrors, floorSeconds);
  return runs.map((run) => ({ ...summarize(run.latencies, run.errors, run.seconds), floorRun, sliceRatios: run.sliceRatios }));
}

/** The instance caches of the bench server at `base` on or off (with the named namespaces off alone), emptied and their counters zeroed. */
export async function setInstanceCaches(base, mode, without = []) {
  const res = await fetch(`${base}/bench/instance-caches?mode=${mode}&without=${without.join(',')}`, { method: 'POST' });
  if (!res.ok) throw new Error(`instance caches -> ${res.status}`);
  return res.json();
}
