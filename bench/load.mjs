// A small closed-loop load driver: `connections` concurrent clients, each
// sending its next request as soon as the previous one answered, for `seconds`.
import { performance } from 'node:perf_hooks';

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/**
 * `makeRequest(i)` returns `{method, path, body?, before?}`; answers outside 2xx are counted as
 * errors. `before`, when given, runs first and is not timed (a write the measured request follows).
 */
export async function load({ base, headers, makeRequest, connections = 8, seconds = 5, maxRequests = Infinity }) {
  const latencies = [];
  let errors = 0;
  let sent = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  async function client() {
    while (performance.now() < deadline && sent < maxRequests) {
      const { method, path, body, before } = makeRequest(sent++);
      if (before) await before();
      const t0 = performance.now();
      try {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        await res.arrayBuffer();
        if (res.status >= 300) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: connections }, client));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
