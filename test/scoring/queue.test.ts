import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { dbFor, runBatch } from '../../src/platform/d1/db';
import { scoreContacts } from '../../src/modules/scoring/recompute';
import { type ConfigRow, configOf, readConfig } from '../../src/modules/scoring/store';
import { admin, adminOk } from '../support/harness';
import { deliver } from '../support/send-queue';
import { shardOf } from '../support/db';
import { freshEmail, ok, scoreBecomes, scoringWorkspace, settled } from './support';

const bindings = env as unknown as Bindings;

describe('queue messages', () => {
  it('a replayed signal message and a superseded rescoring message change nothing', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 40 }]);
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    await scoreBecomes(ws, deal.contact_id, 40);
    const waiting: never[] = [];
    await deliver(bindings, waiting, [
      { kind: 'scoring-signals', workspace_id: ws.id },
      { kind: 'scoring-signals', workspace_id: ws.id },
    ]);
    expect((await ok(ws, 'GET', `/v1/contacts/${deal.contact_id}`)).lead_score).toBe(40);

    await adminOk('PUT', `/workspaces/${ws.id}/scoring`, { enabled: true, rules: [{ signal: 'deal.won', points: 10 }] });
    await settled(ws);
    await scoreBecomes(ws, deal.contact_id, 10);
    const { rescore_generation: generation } = (await (
      await shardOf(ws.id)
    )
      .prepare('SELECT rescore_generation FROM scoring_configs WHERE workspace_id = ?')
      .bind(ws.id)
      .first<{ rescore_generation: number }>())!;
    // The first walk's message, delivered late: its generation is gone, so it scores nothing with anything.
    await deliver(bindings, waiting, [{ kind: 'scoring-rescore', workspace_id: ws.id, generation: generation - 1, after: '' }]);
    await deliver(bindings, waiting, [{ kind: 'scoring-rescore', workspace_id: ws.id, generation, after: '' }]);
    expect((await ok(ws, 'GET', `/v1/contacts/${deal.contact_id}`)).lead_score).toBe(10);
    expect(waiting).toEqual([]);
  });
});

describe('merge', () => {
  it('the surviving contact is scored with the absorbed contact’s signals', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 40 }]);
    const phone = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
    const email = freshEmail();
    const byPhone = await ok(ws, 'POST', '/v1/contacts', { phone });
    const byEmail = await ok(ws, 'POST', '/v1/contacts', { email });
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', contact_id: byEmail.id });
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    await scoreBecomes(ws, byEmail.id, 40);
    const conflict = await ws.api('POST', '/v1/contacts', { phone, email });
    expect(conflict.status).toBe(409);
    const merged = await adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    const survivor = merged.target_contact_id;
    const absorbed = survivor === byPhone.id ? byEmail.id : byPhone.id;
    // The moved signals are pending again: the sweep's catch-up scores them if no message does first.
    await adminOk('POST', '/sweeps/lead-scoring');
    await scoreBecomes(ws, survivor, 40);
    const rows = await (await shardOf(ws.id))
      .prepare('SELECT contact_id FROM score_signals WHERE workspace_id = ?')
      .bind(ws.id)
      .all<{ contact_id: string }>();
    expect(rows.results.every((r) => r.contact_id === survivor)).toBe(true);
    expect(rows.results.some((r) => r.contact_id === absorbed)).toBe(false);
  });
});

describe('parallel rule changes', () => {
  it('ten parallel PUTs all answer, one configuration wins and every contact ends scored by it', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 40 }]);
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    await scoreBecomes(ws, deal.contact_id, 40);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        admin('PUT', `/workspaces/${ws.id}/scoring`, { enabled: true, rules: [{ signal: 'deal.won', points: i + 1 }] }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    await settled(ws);
    const final = await adminOk('GET', `/workspaces/${ws.id}/scoring`);
    await scoreBecomes(ws, deal.contact_id, final.rules[0].points);
  });
});

describe('stale rules', () => {
  it('a pass computed from rules replaced meanwhile writes no score', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 40 }]);
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    await scoreBecomes(ws, deal.contact_id, 40);
    const db = dbFor(await shardOf(ws.id));
    const [rows] = (await runBatch(db, [readConfig(db, ws.id)])) as [ConfigRow[]];
    const read = configOf(rows[0])!;
    await adminOk('PUT', `/workspaces/${ws.id}/scoring`, { enabled: true, rules: [{ signal: 'deal.won', points: 10 }] });
    await settled(ws);
    await scoreBecomes(ws, deal.contact_id, 10);
    expect(await scoreContacts(db, ws.id, read, [deal.contact_id])).toBe(0);
    expect((await ok(ws, 'GET', `/v1/contacts/${deal.contact_id}`)).lead_score).toBe(10);
  });
});
