import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace } from '../support/harness';
import { column, createDeal, eventsOf, expectDense, query, stagesOf } from './helpers';

const BARE_KEYS = [
  'id',
  'workspace_id',
  'pipeline_id',
  'stage_id',
  'contact_id',
  'product_id',
  'owner_user_id',
  'title',
  'amount',
  'currency',
  'status',
  'lost_reason',
  'expected_close_at',
  'closed_at',
  'stage_entered_at',
  'position',
  'note',
  'external_reference',
  'source',
  'created_by',
  'created_at',
  'updated_at',
].sort();

describe('POST /v1/deals/{id}/stage', () => {
  it('moves across stages and pipelines with history, activity and deal.stage_changed; answers the bare row', async () => {
    const ws = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const other = await adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name: 'Renewals', is_default: false, stages: [{ name: 'Due' }] });
    const deal = await createDeal(ws, { amount: 3 });
    const res = await ws.api('POST', `/v1/deals/${deal.id}/stage`, { stage_id: other.stages[0].id });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(BARE_KEYS);
    expect(res.body).toMatchObject({ stage_id: other.stages[0].id, pipeline_id: other.id, position: 0, status: 'open' });
    expect(res.body.stage_entered_at > deal.stage_entered_at).toBe(true);
    expect(await query('SELECT from_stage_id, to_stage_id, to_pipeline_id FROM deal_stage_history WHERE deal_id = ?', deal.id)).toEqual([
      { from_stage_id: sales.stages[0].id, to_stage_id: other.stages[0].id, to_pipeline_id: other.id },
    ]);
    expect(
      (
        await query(
          "SELECT type FROM contact_activities WHERE contact_id = ? AND json_extract(data, '$.deal_id') = ? ORDER BY created_at, id",
          deal.contact_id,
          deal.id,
        )
      ).map((r) => r.type),
    ).toEqual(['deal_created', 'deal_stage_changed']);
    const events = await eventsOf(ws.id, 'deal.stage_changed');
    expect(events).toEqual([
      {
        type: 'deal.stage_changed',
        data: {
          deal_id: deal.id,
          contact_id: deal.contact_id,
          pipeline_id: other.id,
          pipeline_name: 'Renewals',
          stage_id: other.stages[0].id,
          stage_name: 'Due',
          from_stage_id: sales.stages[0].id,
          from_stage_name: 'New',
          status: 'open',
          title: 'Deal',
          amount: 3,
          currency: 'USD',
          owner_user_id: null,
          external_reference: null,
          source: 'api',
          expected_close_at: null,
          closed_at: null,
          lost_reason: null,
        },
      },
    ]);
  });

  it('inserts at index, closes the gap it leaves, clamps past the end', async () => {
    const ws = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const [a, b] = sales.stages;
    const inA = [];
    for (let i = 0; i < 3; i++) inA.push(await createDeal(ws));
    const inB = [];
    for (let i = 0; i < 3; i++) inB.push(await createDeal(ws, { stage_id: b.id }));
    const colB = (await column(ws.id, b.id)).map((r) => r.id);
    const moved = await ws.api('POST', `/v1/deals/${inA[1].id}/stage`, { stage_id: b.id, index: 1 });
    expect(moved.body.position).toBe(1);
    expect((await column(ws.id, b.id)).map((r) => r.id)).toEqual([colB[0], inA[1].id, colB[1], colB[2]]);
    expectDense(await column(ws.id, a.id));
    expectDense(await column(ws.id, b.id));
    const bottom = await ws.api('POST', `/v1/deals/${inA[0].id}/stage`, { stage_id: b.id, index: 100000 });
    expect(bottom.body.position).toBe(4);
    expectDense(await column(ws.id, b.id));
    expect(await column(ws.id, a.id)).toHaveLength(1);
  });

  it('reorders within the same stage without history or event', async () => {
    const ws = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const stage = sales.stages[0];
    for (let i = 0; i < 4; i++) await createDeal(ws);
    const before = (await column(ws.id, stage.id)).map((r) => r.id);
    const top = before[0];
    const res = await ws.api('POST', `/v1/deals/${top}/stage`, { stage_id: stage.id, index: 2 });
    expect(res.status).toBe(201);
    expect(res.body.position).toBe(2);
    expect((await column(ws.id, stage.id)).map((r) => r.id)).toEqual([before[1], before[2], top, before[3]]);
    const back = await ws.api('POST', `/v1/deals/${top}/stage`, { stage_id: stage.id });
    expect(back.body.position).toBe(0);
    expect((await column(ws.id, stage.id)).map((r) => r.id)).toEqual(before);
    expect(await query('SELECT id FROM deal_stage_history WHERE workspace_id = ?', ws.id)).toEqual([]);
    expect(await eventsOf(ws.id, 'deal.stage_changed')).toEqual([]);
    const [row] = await query('SELECT stage_entered_at, created_at FROM deals WHERE id = ?', top);
    expect(row.stage_entered_at).toBe(row.created_at);
  });

  it('writes only the shorter side of a column: none for a new deal on top or a move to the top or bottom', async () => {
    const ws = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const [a, b] = sales.stages;
    const inA = [];
    for (let i = 0; i < 7; i++) inA.push(await createDeal(ws));
    for (let i = 0; i < 3; i++) await createDeal(ws, { stage_id: b.id });
    const slots = async () =>
      new Map(
        (await query<{ id: string; position: number }>('SELECT id, position FROM deals WHERE workspace_id = ?', ws.id)).map((r) => [
          r.id,
          r.position,
        ]),
      );
    const moved = async (before: Map<string, number>, except: string) =>
      [...(await slots())].filter(([id, slot]) => id !== except && before.get(id) !== slot).map(([id]) => id);
    const topOf = async (stageId: string) => (await column(ws.id, stageId)).map((r) => r.id);

    // Column A, top first: inA[6] .. inA[0]. Leaving from index 5 of 7 moves the one deal below it.
    let before = await slots();
    const leave = await ws.api('POST', `/v1/deals/${inA[1].id}/stage`, { stage_id: b.id });
    expect(leave.body.position).toBe(0);
    expect(await moved(before, inA[1].id)).toEqual([inA[0].id]);

    // From index 1 of A's six into index 1 of B's four: in each column the one deal above moves.
    before = await slots();
    const inside = await ws.api('POST', `/v1/deals/${inA[5].id}/stage`, { stage_id: b.id, index: 1 });
    expect(inside.body.position).toBe(1);
    const bTop = (await topOf(b.id))[0];
    expect((await moved(before, inA[5].id)).sort()).toEqual([bTop, inA[6].id].sort());
    expect((await topOf(b.id))[1]).toBe(inA[5].id);

    // From A's top to B's bottom, and a new deal on top: nothing else moves.
    before = await slots();
    const bottom = await ws.api('POST', `/v1/deals/${inA[6].id}/stage`, { stage_id: b.id, index: 100 });
    expect(bottom.body.position).toBe(5);
    expect(await moved(before, inA[6].id)).toEqual([]);
    before = await slots();
    const fresh = await createDeal(ws, { stage_id: b.id });
    expect(fresh.position).toBe(0);
    expect(await moved(before, fresh.id)).toEqual([]);

    // Every answer's position is the deal's place in its column.
    for (const stage of [a, b]) {
      const order = await topOf(stage.id);
      expectDense(await column(ws.id, stage.id));
      const listed = (await ws.api('GET', `/v1/deals?stage_id=${stage.id}&limit=100`)).body.data;
      expect(Object.fromEntries(listed.map((d: any) => [d.id, d.position]))).toEqual(Object.fromEntries(order.map((id, i) => [id, i])));
      for (const [i, id] of order.entries()) expect((await ws.api('GET', `/v1/deals/${id}`)).body.position).toBe(i);
    }
  });

  it('keeps every column dense under parallel moves', async () => {
    const ws = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const deals = [];
    for (let i = 0; i < 8; i++) deals.push(await createDeal(ws, { stage_id: sales.stages[i % 3].id }));
    await Promise.all(deals.map((d, i) => ws.api('POST', `/v1/deals/${d.id}/stage`, { stage_id: sales.stages[(i + 1) % 3].id, index: i % 4 })));
    await Promise.all(deals.map((d, i) => ws.api('POST', `/v1/deals/${d.id}/stage`, { stage_id: sales.stages[i % 2].id, index: 7 - i })));
    let total = 0;
    for (const s of sales.stages) {
      const rows = await column(ws.id, s.id);
      expectDense(rows);
      total += rows.length;
      const listed = (await ws.api('GET', `/v1/deals?stage_id=${s.id}`)).body.data;
      expect(Object.fromEntries(listed.map((d: any) => [d.id, d.position]))).toEqual(Object.fromEntries(rows.map((r) => [r.id, r.position])));
    }
    expect(total).toBe(8);
  });

  it('validates the body and answers 404 for unknown or foreign deals and stages', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const [sales] = await stagesOf(ws);
    const [theirs] = await stagesOf(other);
    const deal = await createDeal(ws);
    const foreignDeal = await createDeal(other);
    for (const body of [
      {},
      { stage_id: 'x' },
      { stage_id: sales.stages[1].id, index: -1 },
      { stage_id: sales.stages[1].id, index: 100001 },
      { stage_id: sales.stages[1].id, index: 1.5 },
      { stage_id: sales.stages[1].id, extra: true },
    ]) {
      expect((await ws.api('POST', `/v1/deals/${deal.id}/stage`, body)).status, JSON.stringify(body)).toBe(400);
    }
    const noStage = await ws.api('POST', `/v1/deals/${deal.id}/stage`, { stage_id: theirs.stages[1].id });
    expect(noStage.status).toBe(404);
    expect(noStage.body.message).toBe('Stage not found');
    const noDeal = await ws.api('POST', `/v1/deals/${foreignDeal.id}/stage`, { stage_id: sales.stages[1].id });
    expect(noDeal.status).toBe(404);
    expect(noDeal.body.message).toBe('Deal not found');
    expect((await ws.api('POST', '/v1/deals/nope/stage', { stage_id: sales.stages[1].id })).status).toBe(400);
  });
});

describe('POST /v1/deals/{id}/status', () => {
  it('follows the state table and emits deal.won / deal.lost only', async () => {
    const ws = await makeWorkspace();
    const deal = await createDeal(ws);
    const won = await ws.api('POST', `/v1/deals/${deal.id}/status`, { status: 'won', lost_reason: 'ignored' });
    expect(won.status).toBe(201);
    expect(Object.keys(won.body).sort()).toEqual(BARE_KEYS);
    expect(won.body).toMatchObject({ status: 'won', lost_reason: null, stage_id: deal.stage_id });
    expect(won.body.closed_at).toEqual(expect.any(String));

    const same = await ws.api('POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    expect(same.status).toBe(201);
    expect(same.body).toEqual(won.body);

    const lost = await ws.api('POST', `/v1/deals/${deal.id}/status`, { status: 'lost', lost_reason: 'too pricey' });
    expect(lost.body).toMatchObject({ status: 'lost', lost_reason: 'too pricey' });
    expect(lost.body.closed_at >= won.body.closed_at).toBe(true);

    const reopened = await ws.api('POST', `/v1/deals/${deal.id}/status`, { status: 'open' });
    expect(reopened.body).toMatchObject({ status: 'open', lost_reason: null, closed_at: null });

    const events = await eventsOf(ws.id);
    expect(events.filter((e) => e.type.startsWith('deal.')).map((e) => e.type)).toEqual(['deal.created', 'deal.won', 'deal.lost']);
    const lostEvent = events.find((e) => e.type === 'deal.lost')!;
    expect(lostEvent.data).toMatchObject({
      status: 'lost',
      lost_reason: 'too pricey',
      closed_at: lost.body.closed_at,
      stage_name: 'New',
      pipeline_name: 'Sales',
      from_stage_id: null,
      from_stage_name: null,
    });
    expect(await query('SELECT id FROM deal_stage_history WHERE deal_id = ?', deal.id)).toEqual([]);
    const timeline = await query(
      "SELECT json_extract(data, '$.to_status') AS status FROM contact_activities WHERE contact_id = ? AND type = 'deal_status_changed' ORDER BY created_at, id",
      deal.contact_id,
    );
    expect(timeline.map((r) => r.status)).toEqual(['won', 'lost', 'open']);
  });

  it('emits one event for parallel identical status changes', async () => {
    const ws = await makeWorkspace();
    const deal = await createDeal(ws);
    const results = await Promise.all(Array.from({ length: 5 }, () => ws.api('POST', `/v1/deals/${deal.id}/status`, { status: 'won' })));
    expect(results.map((r) => r.status)).toEqual(Array(5).fill(201));
    expect(await eventsOf(ws.id, 'deal.won')).toHaveLength(1);
  });

  it('validates the body and answers 404 for foreign deals', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const deal = await createDeal(ws);
    const foreign = await createDeal(other);
    for (const body of [{}, { status: 'closed' }, { status: 'lost', lost_reason: 'x'.repeat(1001) }, { status: 'won', note: 'x' }]) {
      expect((await ws.api('POST', `/v1/deals/${deal.id}/status`, body)).status).toBe(400);
    }
    const res = await ws.api('POST', `/v1/deals/${foreign.id}/status`, { status: 'won' });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Deal not found');
    expect((await other.api('GET', `/v1/deals/${foreign.id}`)).body.status).toBe('open');
  });
});
