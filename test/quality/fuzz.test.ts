import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, it, type ExpectStatic } from 'vitest';
import { call, makeWorkspace, shardFor, type ApiResponse } from '../support/harness';
import { bodyProperties, contentPaths } from '../support/openapi';
import { readBackPaths } from '../support/read-back';
import { seedAll } from '../support/resources';
import { resourceKeys, ROUTES, takesBody, type RouteCase } from '../support/routes';
import { EDGE_VALUES, edgeRequests, requestsFor, type FuzzRequest } from './fuzz-inputs';
import { rowCounts } from './row-counts';

/**
 * Adversarial input against every /v1 route of the route table: the answer is
 * a 4xx in the route's error shape (a 2xx only for input that happens to be
 * valid), never a 5xx, a rejected request writes no row, and what an accepted
 * write stored reads back: the record's GET and its lists answer 200.
 *
 * Replay a failure: FUZZ_SEED=<seed printed in the failure> npx vitest run test/quality/fuzz.test.ts
 * (add FUZZ_PATH=<path printed> and `-t '<route>'` to run only the shrunk counterexample).
 */
const vars = env as unknown as { FUZZ_SEED?: string; FUZZ_PATH?: string; FUZZ_RUNS?: string; CI?: string };
const CI_SEED = 20261122;
const seed = vars.FUZZ_SEED ? Number(vars.FUZZ_SEED) : vars.CI ? CI_SEED : Math.floor(Math.random() * 2 ** 31);
/**
 * A case costs about 10 ms of the two cores: 50 cases a route (over 8,000 for the whole table) keep
 * the file near a minute and a half; the seed changes every local run, so runs add up to far more.
 * FUZZ_RUNS=300 (or more) is the deep run to make before a release.
 */
const RUNS_PER_ROUTE = Number(vars.FUZZ_RUNS) || 50;

/** Each route gets its own workspace (high key limit, shards taken in turn) and IP range, so the routes run side by side. */
async function fuzzClient(routeIndex: number) {
  const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 }, shard: shardFor(routeIndex) });
  let sent = 0;
  // A new source IP every 100 requests keeps the per-IP limit (300/min) out of the way.
  const ip = () => `2001:db8:f${routeIndex.toString(16)}::${(Math.floor(sent++ / 100) + 1).toString(16)}`;
  const send = (route: RouteCase, req: FuzzRequest) =>
    call(route.method, req.path, { key: ws.key, ip: ip(), headers: req.headers, rawBody: req.body });
  const get = (path: string) => call('GET', path, { key: ws.key, ip: ip() });
  return { ws, send, get };
}

function isFrameworkError(res: ApiResponse): boolean {
  const b = res.body;
  if (b?.error_code === 'FEATURE_NOT_INCLUDED_IN_PLAN') return typeof b.message === 'string';
  const message = b?.message;
  const messageOk = typeof message === 'string' || (Array.isArray(message) && message.every((m) => typeof m === 'string'));
  return b?.statusCode === res.status && messageOk && typeof b.error === 'string';
}

/** Every answer names its request (a UUIDv7), whatever the input. */
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const isDomainError = (res: ApiResponse) => typeof res.body?.error?.code === 'string' && typeof res.body.error.message === 'string';

const inErrorShape = (route: RouteCase, res: ApiResponse) =>
  /^application\/json/.test(res.headers.get('content-type') ?? '') &&
  (isFrameworkError(res) || (route.errorShape === 'domain' && isDomainError(res)));

const describeRequest = (route: RouteCase, req: FuzzRequest) =>
  `${route.method} ${req.path.slice(0, 200)} [${req.headers['content-type'] ?? 'no content-type'}] ${String(req.body).slice(0, 200)}`;

/**
 * The per-request contract: below 500; a rejection is a 4xx in the route's
 * error shape that wrote no row; an acceptance stored what reads back (the
 * record's GET and its lists answer 200).
 */
function contractCheck(route: RouteCase, client: Awaited<ReturnType<typeof fuzzClient>>, expect: ExpectStatic) {
  // A rejected request leaves the counts as they were, so its "after" is the next case's "before".
  let baseline: Record<string, number> | null = null;
  return async (req: FuzzRequest) => {
    const before = baseline ?? (await rowCounts(client.ws.id));
    baseline = null;
    const res = await client.send(route, req);
    const where = describeRequest(route, req);
    expect(res.status, `${where} -> ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
    expect(res.headers.get('x-request-id'), `X-Request-Id: ${where}`).toMatch(REQUEST_ID);
    if (res.status < 300) {
      const created = route.method === 'POST' && typeof res.body?.id === 'string' ? res.body.id : undefined;
      for (const path of readBackPaths(route, req.path, created)) {
        const read = await client.get(path);
        expect(read.status, `GET ${path} after ${where} -> ${JSON.stringify(read.body).slice(0, 300)}`).toBe(200);
      }
      return;
    }
    expect(res.status, where).toBeGreaterThanOrEqual(400);
    expect(
      inErrorShape(route, res),
      `${where} -> ${res.status} not in the ${route.errorShape ?? 'framework'} shape: ${JSON.stringify(res.body).slice(0, 300)}`,
    ).toBe(true);
    const after = await rowCounts(client.ws.id);
    const changed = Object.keys(after).filter((t) => after[t] !== before[t]);
    expect(changed, `${where} was rejected with ${res.status} but wrote rows`).toEqual([]);
    baseline = after;
  };
}

describe('adversarial input', () => {
  it.concurrent.for(ROUTES.map((route, index) => ({ route, index, name: `${route.method} ${route.path}` })))(
    `$name answers ${RUNS_PER_ROUTE} bad requests with a 4xx in its error shape and writes nothing, or stores what reads back`,
    async ({ route, index }, { expect }) => {
      const client = await fuzzClient(index);
      const check = contractCheck(route, client, expect);
      const property = fc.asyncProperty(requestsFor(route, await bodyProperties(route), await contentPaths(route)), check);
      try {
        await fc.assert(property, { seed, numRuns: RUNS_PER_ROUTE, path: vars.FUZZ_PATH || undefined });
      } catch (err) {
        throw new Error(`Replay with FUZZ_SEED=${seed} (FUZZ_PATH from the line below replays only the counterexample)\n${(err as Error).message}`, {
          cause: err,
        });
      }
    },
  );
});

/**
 * Exhaustive rather than random: every documented body property of every
 * route at each edge value, sent to a real record of the route (so updates
 * reach the stored data and read it back), under the same contract.
 */
/** Properties a test sends at their edges: a bound on each test's work, so its time stays far below the test timeout on a busy machine. */
const PROPERTIES_PER_TEST = 8;

const edgeCases = (
  await Promise.all(
    ROUTES.map(async (route, index) => {
      if (!takesBody(route)) return [];
      const properties = await bodyProperties(route);
      const parts = Math.max(1, Math.ceil(properties.length / PROPERTIES_PER_TEST));
      return Array.from({ length: parts }, (_, part) => ({
        route,
        index,
        properties: properties.slice(part * PROPERTIES_PER_TEST, (part + 1) * PROPERTIES_PER_TEST),
        // Documented content (markdown, blocks) is sent at its limits once per route.
        withContent: part === 0,
        name: `${route.method} ${route.path}${parts > 1 ? ` (properties ${part + 1} of ${parts})` : ''}`,
      }));
    }),
  )
).flat();

describe('documented properties at their edges', () => {
  it.concurrent.for(edgeCases.map((c, caseIndex) => ({ ...c, caseIndex })))(
    `$name holds the contract for every property at ${EDGE_VALUES.length} edge values, and documented content at its limits`,
    async ({ route, properties, withContent, caseIndex }, { expect }) => {
      const client = await fuzzClient(ROUTES.length + caseIndex);
      const keys = resourceKeys(route.path);
      const records = await seedAll(client.ws, [
        ...new Set(
          Object.entries(keys)
            .filter(([name]) => route.params?.[name] === undefined)
            .map(([, key]) => key),
        ),
      ]);
      const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => route.params?.[name] ?? records.get(keys[name])!.id);
      const check = contractCheck(route, client, expect);
      for (const req of edgeRequests(route, properties, path, withContent ? await contentPaths(route) : [])) await check(req);
    },
  );
});
