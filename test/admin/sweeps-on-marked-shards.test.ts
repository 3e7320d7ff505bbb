import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { publishEvents } from '../../src/modules/webhooks/publisher';
import { settledHere, workspaceIdOf } from '../../src/platform/d1/workspace-moves/settled';
import { runSweep } from '../../src/sweeps/runner';
import { wiring } from '../../src/wiring';
import { controlD1, rowsIn, shardBindings } from '../support/db';
import { adminOk, eventually, makeWorkspace, type TestWorkspace } from '../support/harness';
import { heldQueue } from '../support/plans';
import { seedAll } from '../support/resources';
import { ensureSender } from '../support/routes';
import { dataDb, emitEvent, recordingQueueEnv, receiverUrl, registerEndpoint } from '../webhooks/support';

const raw = env as unknown as Record<string, D1Database>;
const LONG_AGO = '2020-01-01T00:00:00.000Z';
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

/** What a sweep sent to the queues (held: nothing is consumed, so what the sweep did stays as it left it). */
type Sent = { events: any[]; sends: any[] };

/** A sweep's due work in a fresh workspace settled on its shard, and the check that the sweep did it. */
type Fixture = () => Promise<(sent: Sent) => Promise<void>>;

async function ok<T = any>(ws: TestWorkspace, method: string, path: string, body?: unknown): Promise<T> {
  const res = await ws.api<T>(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
const one = async <T = any>(ws: TestWorkspace, sql: string, ...binds: unknown[]): Promise<T> => (await rowsIn<T>(ws.id, sql, ...binds))[0];

/**
 * Every sweep the wiring runs (the operator API's `POST /admin/v1/sweeps/{name}`), each with work that is due for a
 * workspace settled on its shard. A sweep added to a manifest needs an entry here.
 */
const FIXTURES: Record<string, Fixture> = {
  'bookings-status': async () => {
    const ws = await makeWorkspace();
    // The booking's confirmation goes out through the workspace's sender.
    await ensureSender(ws);
    const booking = await seedAll(ws, ['bookings/{id}']).then((m) => m.get('bookings/{id}')!);
    await rowsIn(ws.id, "UPDATE bookings SET start_at = '2020-01-01T09:00:00.000Z', end_at = '2020-01-01T09:30:00.000Z' WHERE id = ?", booking.id);
    return async () => expect((await one(ws, 'SELECT status FROM bookings WHERE id = ?', booking.id)).status).toBe('completed');
  },

  'webhook-outbox': async () => {
    const ws = await makeWorkspace();
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    // An event the publisher never sent, and one whose delivery's message the queue lost.
    const unsent = await emitEvent(ws.id, 'deal.created', { deal_id: crypto.randomUUID() }, 60_000);
    const lost = await emitEvent(ws.id, 'deal.created', { deal_id: crypto.randomUUID() });
    await publishEvents(recordingQueueEnv().env, await dataDb(ws.id), [lost.id]);
    await rowsIn(ws.id, 'UPDATE webhook_deliveries SET updated_at = ? WHERE event_id = ?', daysAgo(1), lost.id);
    return async (sent) => {
      const mine = sent.events.filter((m) => m.workspace_id === ws.id && m.endpoint_id === ep.id).map((m) => m.event.id);
      expect(mine.sort()).toEqual([unsent.id, lost.id].sort());
      expect((await one(ws, 'SELECT enqueued_at FROM event_outbox WHERE id = ?', unsent.id)).enqueued_at).not.toBeNull();
    };
  },

  'webhook-retention': async () => {
    const ws = await makeWorkspace();
    const old = daysAgo(40);
    const event = crypto.randomUUID();
    await rowsIn(
      ws.id,
      "INSERT INTO event_outbox (id, workspace_id, type, data, created_at, enqueued_at, attempts) VALUES (?, ?, 'deal.created', '{}', ?, ?, 1)",
      event,
      ws.id,
      old,
      old,
    );
    await rowsIn(
      ws.id,
      `INSERT INTO webhook_deliveries (id, workspace_id, event_id, event_type, endpoint_id, url, state, attempts, created_at, updated_at)
       VALUES (?, ?, ?, 'deal.created', ?, 'https://receiver.example.com/', 'succeeded', 1, ?, ?)`,
      crypto.randomUUID(),
      ws.id,
      event,
      crypto.randomUUID(),
      old,
      old,
    );
    return async () => {
      expect(await rowsIn(ws.id, 'SELECT id FROM event_outbox WHERE id = ?', event)).toEqual([]);
      expect(await rowsIn(ws.id, 'SELECT id FROM webhook_deliveries WHERE event_id = ?', event)).toEqual([]);
    };
  },

  'recurring-payments': async () => {
    const ws = await makeWorkspace();
    const plan = await ok(ws, 'POST', '/v1/payments', {
      type: 'recurring',
      amount: 10,
      email: `${crypto.randomUUID()}@example.com`,
      purchase_date: '2020-01-01',
    });
    return async () => expect((await one(ws, 'SELECT count(*) AS n FROM payment_entries WHERE payment_id = ?', plan.id)).n).toBe(2);
  },

  'expire-payment-requests': async () => {
    const ws = await makeWorkspace();
    const request = await ok(ws, 'POST', '/v1/payment-requests', { amount: 25, email: `${crypto.randomUUID()}@example.com` });
    await rowsIn(ws.id, 'UPDATE payment_requests SET expires_at = ? WHERE id = ?', LONG_AGO, request.id);
    return async () => expect((await one(ws, 'SELECT status FROM payment_requests WHERE id = ?', request.id)).status).toBe('expired');
  },

  'campaign-schedules': async () => {
    const ws = await makeWorkspace({ whatsapp_phone_number_id: `pn-${crypto.randomUUID()}` });
    await ensureSender(ws);
    const seeded = await seedAll(ws, ['templates/{id}', 'campaigns/{id}', 'email-campaigns/{id}']);
    const template = seeded.get('templates/{id}')!;
    const whatsappDue = seeded.get('campaigns/{id}')!.id;
    const whatsappStalled = (
      await ok(ws, 'POST', '/v1/campaigns', { name: 'Stalled', template_id: template.id, audience_filters: { city: 'Nowhere' } })
    ).id;
    await rowsIn(ws.id, "UPDATE whatsapp_campaigns SET status = 'scheduled', scheduled_at = ? WHERE id = ?", LONG_AGO, whatsappDue);
    await rowsIn(ws.id, "UPDATE whatsapp_campaigns SET status = 'running', updated_at = ? WHERE id = ?", LONG_AGO, whatsappStalled);
    const emailDue = seeded.get('email-campaigns/{id}')!.id;
    const emailStalled = (await ok(ws, 'POST', '/v1/email-campaigns', { name: 'Stalled', subject: 'Hi', content: { markdown: 'Words' } })).id;
    await ok(ws, 'POST', `/v1/email-campaigns/${emailStalled}/schedule`, { scheduled_at: '2031-06-01T09:00:00Z' });
    await rowsIn(ws.id, 'UPDATE email_campaigns SET scheduled_at = ? WHERE id = ?', LONG_AGO, emailDue);
    await rowsIn(ws.id, "UPDATE email_campaigns SET status = 'sending', updated_at = ? WHERE id = ?", LONG_AGO, emailStalled);
    return async (sent) => {
      expect((await one(ws, 'SELECT status FROM whatsapp_campaigns WHERE id = ?', whatsappDue)).status).not.toBe('scheduled');
      expect((await one(ws, 'SELECT status FROM email_campaigns WHERE id = ?', emailDue)).status).not.toBe('scheduled');
      const pages = sent.sends.filter((m) => m.workspace_id === ws.id && m.drain === true).map((m) => m.campaign_id);
      expect(pages).toEqual(expect.arrayContaining([whatsappStalled, emailStalled]));
    };
  },

  'publish-issues': async () => {
    const ws = await makeWorkspace();
    const issue = await seedAll(ws, ['newsletter-issues/{id}']).then((m) => m.get('newsletter-issues/{id}')!);
    await rowsIn(ws.id, 'UPDATE newsletter_issues SET scheduled_at = ? WHERE id = ?', LONG_AGO, issue.id);
    return async () => expect((await one(ws, 'SELECT status FROM newsletter_issues WHERE id = ?', issue.id)).status).toBe('published');
  },

  'deliver-newsletters': async () => {
    const ws = await makeWorkspace();
    await ensureSender(ws);
    const newsletter = await ok(ws, 'POST', '/v1/newsletters', { name: `News ${crypto.randomUUID().slice(0, 8)}` });
    const issue = await ok(ws, 'POST', `/v1/newsletters/${newsletter.id}/issues`, { subject: 'Weekly', content: { markdown: 'Words' } });
    await ok(ws, 'POST', `/v1/newsletter-issues/${issue.id}/publish`);
    const contact = await ok(ws, 'POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` });
    const subscription = await adminOk('POST', `/workspaces/${ws.id}/newsletters/${newsletter.id}/subscriptions`, { contact_id: contact.id });
    // Behind by the published issue and due now.
    await rowsIn(ws.id, 'UPDATE newsletter_subscriptions SET cursor = 0, next_catchup_at = NULL WHERE id = ?', subscription.id);
    return async () =>
      expect(await rowsIn(ws.id, 'SELECT issue_id FROM newsletter_deliveries WHERE workspace_id = ? AND contact_id = ?', ws.id, contact.id)).toEqual([
        { issue_id: issue.id },
      ]);
  },

  'idempotency-keys': async () => {
    const ws = await makeWorkspace();
    const key = crypto.randomUUID();
    await rowsIn(
      ws.id,
      "INSERT INTO idempotency_keys (workspace_id, key, fingerprint, state, claim, lease_until, created_at) VALUES (?, ?, 'f', 'done', 'c', ?, ?)",
      ws.id,
      key,
      daysAgo(3),
      daysAgo(3),
    );
    return async () => expect(await rowsIn(ws.id, 'SELECT key FROM idempotency_keys WHERE workspace_id = ?', ws.id)).toEqual([]);
  },

  'global-suppressions': async () => {
    const ws = await makeWorkspace();
    const email = `${crypto.randomUUID()}@suppressed.example.com`;
    await rowsIn(ws.id, "INSERT INTO global_email_suppressions (email, reason, created_at) VALUES (?, 'bounced', ?)", email, LONG_AGO);
    return async () => {
      expect(await rowsIn(ws.id, 'SELECT email FROM global_email_suppressions WHERE email = ?', email)).toEqual([]);
      expect(await controlD1().prepare('SELECT email FROM global_email_suppressions WHERE email = ?').bind(email).first()).toEqual({ email });
    };
  },

  'lead-scoring': async () => {
    const ws = await makeWorkspace({}, { bulk: true });
    await adminOk('PUT', `/workspaces/${ws.id}/scoring`, { enabled: true, rules: [{ signal: 'deal.won', points: 80 }], half_life_days: 10 });
    await eventually(
      () => adminOk('GET', `/workspaces/${ws.id}/scoring`),
      (c) => !c.rescoring,
    );
    const [decaying, uncounted] = await Promise.all(
      [0, 1].map(async () => {
        const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: `${crypto.randomUUID()}@example.com` });
        await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
        await eventually(
          () => ok(ws, 'GET', `/v1/contacts/${deal.contact_id}`),
          (c) => c.lead_score === 80,
        );
        return deal.contact_id as string;
      }),
    );
    // Decay due on one contact, a signal no message counted on the other, and a rescoring walk whose message was lost.
    await rowsIn(
      ws.id,
      "UPDATE score_signals SET occurred_at = strftime('%Y-%m-%dT%H:%M:%fZ', occurred_at, '-864000 seconds') WHERE workspace_id = ? AND contact_id = ?",
      ws.id,
      decaying,
    );
    await rowsIn(ws.id, 'UPDATE contact_scores SET decay_due_at = ? WHERE workspace_id = ? AND contact_id = ?', LONG_AGO, ws.id, decaying);
    await rowsIn(ws.id, 'UPDATE score_signals SET pending = 1 WHERE workspace_id = ? AND contact_id = ?', ws.id, uncounted);
    await rowsIn(ws.id, "UPDATE scoring_configs SET rescore_after = '', rescore_touched_at = ? WHERE workspace_id = ?", LONG_AGO, ws.id);
    return async (sent) => {
      expect(
        (await one(ws, 'SELECT decay_due_at FROM contact_scores WHERE workspace_id = ? AND contact_id = ?', ws.id, decaying)).decay_due_at > LONG_AGO,
      ).toBe(true);
      expect((await ok(ws, 'GET', `/v1/contacts/${decaying}`)).lead_score).toBe(40);
      expect(await rowsIn(ws.id, 'SELECT id FROM score_signals WHERE workspace_id = ? AND pending = 1', ws.id)).toEqual([]);
      expect((await one(ws, 'SELECT rescore_touched_at FROM scoring_configs WHERE workspace_id = ?', ws.id)).rescore_touched_at).not.toBe(LONG_AGO);
      expect(sent.events.filter((m) => m.kind === 'scoring-rescore' && m.workspace_id === ws.id)).toHaveLength(1);
    };
  },

  'contact-exports': async () => {
    const ws = await makeWorkspace();
    const exported = await seedAll(ws, ['contact-exports/{id}']).then((m) => m.get('contact-exports/{id}')!);
    await rowsIn(ws.id, 'UPDATE contact_exports SET expires_at = ? WHERE id = ?', LONG_AGO, exported.id);
    return async () => expect((await one(ws, 'SELECT status FROM contact_exports WHERE id = ?', exported.id)).status).toBe('expired');
  },

  'contact-jobs': async () => {
    const ws = await makeWorkspace();
    const seeded = await seedAll(ws, ['contact-imports/{id}', 'contact-exports/{id}']);
    const imported = seeded.get('contact-imports/{id}')!.id;
    const exported = seeded.get('contact-exports/{id}')!.id;
    // Both jobs finished in the background first; then they are made to look stalled, their messages lost.
    await eventually(
      () => ok(ws, 'GET', `/v1/contact-imports/${imported}`),
      (i) => i.status === 'completed',
      10_000,
    );
    await rowsIn(ws.id, "UPDATE contact_imports SET status = 'processing', updated_at = ? WHERE id = ?", LONG_AGO, imported);
    await rowsIn(ws.id, "UPDATE contact_exports SET status = 'processing', updated_at = ? WHERE id = ?", LONG_AGO, exported);
    return async (sent) => {
      const mine = sent.sends.filter((m) => m.workspace_id === ws.id);
      expect(mine).toEqual(
        expect.arrayContaining([expect.objectContaining({ import_id: imported }), expect.objectContaining({ export_id: exported })]),
      );
    };
  },

  'automation-starts': async () => {
    const ws = await makeWorkspace();
    const automation = await ok(ws, 'POST', '/v1/automations', {
      name: 'Unstarted',
      trigger: { event: 'manual' },
      steps: [{ id: 'hold', type: 'wait', duration: 'P30D' }],
    });
    const contact = await ok(ws, 'POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` });
    // An enrollment whose instance was never created (the engine was unreachable when it was written).
    const enrollment = crypto.randomUUID();
    await rowsIn(
      ws.id,
      `INSERT INTO automation_enrollments (id, workspace_id, automation_id, automation_version, contact_id, status, trigger_objects, active_key, enrolled_at, updated_at)
        VALUES (?, ?, ?, 1, ?, 'active', '{}', ?, ?, ?)`,
      enrollment,
      ws.id,
      automation.id,
      contact.id,
      contact.id,
      LONG_AGO,
      LONG_AGO,
    );
    return async () => {
      await eventually(
        () => ok(ws, 'GET', `/v1/automation-enrollments/${enrollment}`),
        (e) => e.steps.some((step: { step_id: string }) => step.step_id === 'hold'),
      );
    };
  },
};

/** Marks of two other workspaces on every shard: one whose copy is arriving, one that left. */
const marks = [
  { workspace: crypto.randomUUID(), role: 'arriving' },
  { workspace: crypto.randomUUID(), role: 'gone' },
];

describe('every sweep on a shard that holds move marks', () => {
  beforeAll(async () => {
    for (const shard of shardBindings())
      for (const m of marks)
        await raw[shard]
          .prepare('INSERT INTO move_marks (workspace_id, move_id, role) VALUES (?, ?, ?)')
          .bind(m.workspace, crypto.randomUUID(), m.role)
          .run();
  });
  afterAll(async () => {
    for (const shard of shardBindings())
      for (const m of marks) await raw[shard].prepare('DELETE FROM move_marks WHERE workspace_id = ?').bind(m.workspace).run();
  });

  it('has due work for each sweep the wiring runs', () => {
    expect(Object.keys(FIXTURES).sort()).toEqual([...wiring.sweeps.keys()].sort());
  });

  it.each(Object.keys(FIXTURES))("%s still does a settled workspace's due work", async (name) => {
    const check = await FIXTURES[name]();
    const events = heldQueue();
    const sends = heldQueue();
    const held = { ...(env as object), EVENTS_QUEUE: events.queue, SEND_QUEUE: sends.queue } as unknown as Bindings;
    const run = await runSweep(held, wiring.sweeps.get(name)!);
    expect(Object.values(run.shards).filter((r) => 'error' in r)).toEqual([]);
    await check({ events: events.bodies, sends: sends.bodies });
  });
});

describe('settledHere', () => {
  it('takes a column or a named alias, never a bare name that the mark itself would answer', () => {
    // @ts-expect-error a bare name would be move_marks.workspace_id inside the check
    expect(() => settledHere(sql`workspace_id`)).toThrow(/never a bare column name/);
    expect(() => workspaceIdOf('s.workspace_id')).toThrow(/not a table name or alias/);
    expect(() => settledHere(workspaceIdOf('s'))).not.toThrow();
  });
});
