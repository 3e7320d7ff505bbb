/// <reference types="vite/client" />
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { composeManifests, type ModuleManifest } from '../../src/platform/manifest';
import { queueConsumer } from '../../src/queue';
import { wiring } from '../../src/wiring';
import { ADMIN_TOKEN, makeWorkspace } from '../support/harness';
import { receiverUrl, registerEndpoint } from '../webhooks/support';

/** Operator calls count no failed tokens here: a Durable Object call would load the Worker's entry into the graph under test. */
const noLimiter = { idFromName: () => ({}), get: () => ({ peek: async () => ({ count: 0, resetAt: Date.now() + 60_000 }) }) };

/**
 * The app as `buildApp()` alone makes it: a fresh module graph holding `src/app.ts` and what it
 * imports, never `src/index.ts` (the test isolate loaded the Worker's entry in a graph of its own).
 */
async function appAlone() {
  vi.resetModules();
  const { buildApp } = await import('../../src/app');
  const app = buildApp();
  return async (bindings: object, method: string, path: string, body?: unknown) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`https://api.test/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      { ...bindings, RATE_LIMITER: noLimiter },
      ctx,
    );
    const json = (await res.json()) as any;
    await waitOnExecutionContext(ctx);
    return { status: res.status, body: json };
  };
}

describe('buildApp() is the whole app', () => {
  it('publishes an event written through it with the webhook publisher', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const endpoint = await registerEndpoint(ws, { url: receiverUrl(), events: ['form.submitted'] });
    const sent: { kind: string; endpoint_id: string; event: { type: string } }[] = [];
    const bindings = {
      ...env,
      EVENTS_QUEUE: {
        sendBatch: async (batch: { body: (typeof sent)[number] }[]) => void sent.push(...batch.map((m) => m.body)),
        send: async () => {},
      },
    };
    const operator = await appAlone();
    const res = await operator(bindings, 'POST', `/workspaces/${ws.id}/forms/${crypto.randomUUID()}/submissions`, {
      form_name: 'Sign-up',
      origin: 'form',
      fields: { a: 1 },
    });
    expect(res.status).toBe(201);
    expect(sent).toEqual([
      expect.objectContaining({ kind: 'webhook-delivery', endpoint_id: endpoint.id, event: expect.objectContaining({ type: 'form.submitted' }) }),
    ]);
  });

  it('runs every sweep the wiring declares from the operator API', async () => {
    const operator = await appAlone();
    const res = await operator(env, 'POST', '/sweeps/no-such-sweep');
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(
      'Unknown sweep "no-such-sweep" (available: bookings-status, webhook-outbox, webhook-retention, recurring-payments, expire-payment-requests, campaign-schedules, publish-issues, deliver-newsletters, idempotency-keys, global-suppressions, lead-scoring, contact-exports, contact-jobs, automation-starts)',
    );
  });
});

const manifestFiles = import.meta.glob<{ manifest: ModuleManifest }>('../../src/modules/*/manifest.ts', { eager: true });

describe('the wiring', () => {
  it('holds the manifest of every module that has one, named as its folder', () => {
    const found = Object.entries(manifestFiles).map(([path, file]) => ({ folder: path.split('/').at(-2), manifest: file.manifest }));
    expect(found.length).toBeGreaterThan(15);
    for (const { folder, manifest } of found) {
      expect(manifest.name, folder).toBe(folder);
      expect(wiring.manifests, folder).toContain(manifest);
    }
    expect(wiring.manifests).toHaveLength(found.length);
  });

  it('gathers exactly what the manifests declare', () => {
    const all = wiring.manifests;
    expect(wiring.routes).toEqual(all.flatMap((m) => m.routes ?? []));
    expect(wiring.publicRoutes.map((r) => r.path)).toEqual(['/', '/book', '/providers/whatsapp', '/t', '/providers/email', '/n', '/u']);
    expect([...wiring.sweeps.keys()].sort()).toEqual(all.flatMap((m) => Object.keys(m.sweeps ?? {})).sort());
    expect(wiring.queueTasks.map((t) => t.kind).sort()).toEqual(all.flatMap((m) => (m.queueTasks ?? []).map((t) => t.kind)).sort());
    expect(wiring.featureGates).toEqual(all.flatMap((m) => m.featureGates ?? []));
    expect(wiring.docs).toHaveLength(all.filter((m) => m.docs).length);
    expect(wiring.eventPublisher).not.toBeNull();
    expect(wiring.subscriptionCheck).not.toBeNull();
    expect([...wiring.emailFactCounters.keys()]).toEqual(['campaign']);
  });
});

describe('composing manifests', () => {
  const sweep = async () => ({});
  const a: ModuleManifest = { name: 'a', sweeps: { tidy: sweep }, docs: () => {} };
  const b: ModuleManifest = { name: 'b', sweeps: { prune: sweep } };

  it("takes docs and sweeps in the given order, the rest in the manifests'", () => {
    const composed = composeManifests([a, b], { docs: [a], sweeps: [b, a] });
    expect([...composed.sweeps.keys()]).toEqual(['prune', 'tidy']);
    expect(composed.docs).toEqual([a.docs]);
  });

  it('refuses what would be lost silently', () => {
    expect(() => composeManifests([a, { ...b, name: 'a' }], { docs: [a], sweeps: [a, b] })).toThrow('module "a" is declared twice');
    const alsoTidy = { ...b, sweeps: { tidy: sweep } };
    expect(() => composeManifests([a, alsoTidy], { docs: [a], sweeps: [a, alsoTidy] })).toThrow('sweep "tidy" is declared twice');
    expect(() => composeManifests([a, b], { docs: [a], sweeps: [a] })).toThrow('sweeps of b missing from the sweeps order');
    expect(() => composeManifests([a, b], { docs: [a, b], sweeps: [a, b] })).toThrow('the docs order names b');
    const publisher = async () => {};
    expect(() =>
      composeManifests(
        [
          { name: 'a', eventPublisher: publisher },
          { name: 'b', eventPublisher: publisher },
        ],
        { docs: [], sweeps: [] },
      ),
    ).toThrow('eventPublisher is provided by a and b');
  });

  it('refuses a queue message kind handled twice', () => {
    const run = async () => {};
    expect(() =>
      queueConsumer([
        { kind: 'page', run },
        { kind: 'page', run, inTurn: true },
      ]),
    ).toThrow('queue message kind "page" is declared twice');
  });
});
