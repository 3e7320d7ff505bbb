import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace } from '../support/harness';
import { shardOf } from '../support/db';
import { freshEmail, ok, scoreBecomes, scoringWorkspace } from './support';

const DAY_MS = 86_400_000;

/** Moves a contact's stored signals and its next decay into the past: the clock the sweep reads stays the real one. */
async function age(workspaceId: string, contactId: string, days: number) {
  const shard = await shardOf(workspaceId);
  const shift = `-${days * 86_400} seconds`;
  await shard.batch([
    shard
      .prepare(`UPDATE score_signals SET occurred_at = strftime('%Y-%m-%dT%H:%M:%fZ', occurred_at, ?) WHERE workspace_id = ? AND contact_id = ?`)
      .bind(shift, workspaceId, contactId),
    shard
      .prepare(
        `UPDATE contact_scores SET decay_due_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 minute') WHERE workspace_id = ? AND contact_id = ?`,
      )
      .bind(workspaceId, contactId),
  ]);
}

const sweep = () => adminOk('POST', '/sweeps/lead-scoring');
const signalCount = async (workspaceId: string, contactId: string) =>
  (await (
    await shardOf(workspaceId)
  )
    .prepare('SELECT count(*) AS n FROM score_signals WHERE workspace_id = ? AND contact_id = ?')
    .bind(workspaceId, contactId)
    .first<{ n: number }>())!.n;

describe('decay', () => {
  it('the daily sweep halves a signal per half-life and prunes signals decayed past counting', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 80 }], 10);
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    await scoreBecomes(ws, deal.contact_id, 80);
    const { decay_due_at } = (await (
      await shardOf(ws.id)
    )
      .prepare('SELECT decay_due_at FROM contact_scores WHERE workspace_id = ? AND contact_id = ?')
      .bind(ws.id, deal.contact_id)
      .first<{ decay_due_at: string }>())!;
    // Decay applies a day after each scoring.
    expect(Date.parse(decay_due_at) - Date.now()).toBeGreaterThan(DAY_MS - 60_000);

    await age(ws.id, deal.contact_id, 10);
    const run = await sweep();
    expect(run.result.decayed).toBeGreaterThanOrEqual(1);
    await scoreBecomes(ws, deal.contact_id, 40);
    await age(ws.id, deal.contact_id, 10);
    await sweep();
    const cold = await scoreBecomes(ws, deal.contact_id, 20);
    expect(cold.score_band).toBe('cold');
    const why = await ok(ws, 'GET', `/v1/contacts/${deal.contact_id}/score`);
    expect(why.contributions).toEqual([{ signal: 'deal.won', points: 20, occurred_at: expect.any(String) }]);

    await age(ws.id, deal.contact_id, 200);
    await sweep();
    await scoreBecomes(ws, deal.contact_id, 0);
    expect(await signalCount(ws.id, deal.contact_id)).toBe(0);
  });

  it('never decays without a half-life', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 80 }], null);
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    await scoreBecomes(ws, deal.contact_id, 80);
    const row = await (await shardOf(ws.id))
      .prepare('SELECT decay_due_at FROM contact_scores WHERE workspace_id = ? AND contact_id = ?')
      .bind(ws.id, deal.contact_id)
      .first<{ decay_due_at: string | null }>();
    expect(row!.decay_due_at).toBeNull();
  });
});

describe('exactly once', () => {
  it('parallel wins of one deal record one signal; scoring again from the stored signals changes nothing', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 30 }]);
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    const answers = await Promise.all(Array.from({ length: 10 }, () => ws.api('POST', `/v1/deals/${deal.id}/status`, { status: 'won' })));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(201));
    await scoreBecomes(ws, deal.contact_id, 30);
    expect(await signalCount(ws.id, deal.contact_id)).toBe(1);
    // A replayed pass (the sweep's catch-up, a redelivered message) recomputes, never adds.
    const shard = await shardOf(ws.id);
    await shard.prepare('UPDATE score_signals SET pending = 1 WHERE workspace_id = ?').bind(ws.id).run();
    await sweep();
    await sweep();
    expect((await ok(ws, 'GET', `/v1/contacts/${deal.contact_id}`)).lead_score).toBe(30);
    const pending = await shard
      .prepare('SELECT count(*) AS n FROM score_signals WHERE workspace_id = ? AND pending = 1')
      .bind(ws.id)
      .first<{ n: number }>();
    expect(pending!.n).toBe(0);
  });
});

describe('isolation', () => {
  it('a workspace neither sees nor moves another workspace’s scores', async () => {
    const a = await scoringWorkspace([{ signal: 'deal.won', points: 50 }]);
    const b = await makeWorkspace({}, { bulk: true });
    const email = freshEmail();
    const inB = await ok(b, 'POST', '/v1/contacts', { email, lead_score: 5 });
    const deal = await ok(a, 'POST', '/v1/deals', { title: 'Won', email });
    await ok(a, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    await scoreBecomes(a, deal.contact_id, 50);
    expect((await b.api('GET', `/v1/contacts/${deal.contact_id}/score`)).status).toBe(404);
    expect((await a.api('GET', `/v1/contacts/${inB.id}/score`)).status).toBe(404);
    const theirs = await ok(b, 'GET', `/v1/contacts/${inB.id}/score`);
    expect(theirs).toEqual({ lead_score: 5, score_band: 'cold', computed_at: null, contributions: [] });
  });
});

describe('a lost rescoring message', () => {
  it('is sent again by the sweep once its walk stood still for a minute', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 40 }]);
    const contact = await ok(ws, 'POST', '/v1/contacts', { email: freshEmail(), lifecycle_stage: 'customer' });
    await scoreBecomes(ws, contact.id, 0);
    const shard = await shardOf(ws.id);
    // A walk whose message never arrived: the rules changed in storage, the cursor at its start, untouched for ten minutes.
    await shard
      .prepare(
        `UPDATE scoring_configs SET rules = ?, rescore_generation = rescore_generation + 1, rescore_after = '',
          rescore_touched_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-10 minutes') WHERE workspace_id = ?`,
      )
      .bind(JSON.stringify([{ field: 'lifecycle_stage', equals: 'customer', points: 20 }]), ws.id)
      .run();
    expect((await adminOk('GET', `/workspaces/${ws.id}/scoring`)).rescoring).toBe(true);
    const run = await sweep();
    expect(run.result.rescores_resumed).toBe(1);
    await scoreBecomes(ws, contact.id, 20);
    expect((await sweep()).result.rescores_resumed).toBe(0);
  });
});
