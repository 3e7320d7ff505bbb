import { describe, expect, it } from 'vitest';
import type { TestWorkspace } from '../support/harness';
import { counted, warmWorkspace } from '../support/round-trips';
import { rowsIn } from '../support/db';
import { column, eventsOf, expectDense, freshPhone, query, stagesOf } from './helpers';

/** Rows a stage move writes besides the deals: what a move that wrote nothing must not change. */
async function footprint(ws: TestWorkspace) {
  const count = async (table: string) =>
    (await rowsIn<{ n: number }>(ws.id, `SELECT count(*) AS n FROM ${table} WHERE workspace_id = ?`, ws.id))[0].n;
  return { history: await count('deal_stage_history'), activities: await count('contact_activities'), events: await count('event_outbox') };
}

const move = (ws: TestWorkspace, dealId: string, stageId: string, index?: number) =>
  counted(ws, 'POST', `/v1/deals/${dealId}/stage`, { stage_id: stageId, ...(index === undefined ? {} : { index }) });

async function movedDeal() {
  const ws = await warmWorkspace();
  const [sales] = await stagesOf(ws);
  const [first, second, third] = sales.stages;
  const deal = (await counted(ws, 'POST', '/v1/deals', { title: 'Known', phone: freshPhone() })).body;
  return { ws, sales, first, second, third, deal };
}

describe('POST /v1/deals/{id}/stage: the reads, then the move, whatever the instance served before', () => {
  it('moves in two round trips every time, with its history, timeline row, event and answer', async () => {
    const { ws, sales, first, second, deal } = await movedDeal();
    const before = await footprint(ws);
    const out = await move(ws, deal.id, second.id);
    expect(out.status).toBe(201);
    expect(out.roundTrips).toBe(2);
    const back = await move(ws, deal.id, first.id);
    expect(back.status).toBe(201);
    expect(back.roundTrips).toBe(2);
    // The deal and stage reads; history, timeline row and event, the three placement statements and the re-read.
    expect(back.statements).toBe(9);
    expect(back.body).toMatchObject({ id: deal.id, stage_id: first.id, pipeline_id: sales.id, position: 0 });
    expect((await ws.api('GET', `/v1/deals/${deal.id}`)).body).toMatchObject(back.body);
    const again = await move(ws, deal.id, second.id);
    expect(again.roundTrips).toBe(2);
    expect(await footprint(ws)).toEqual({ history: before.history + 3, activities: before.activities + 3, events: before.events + 3 });
    expect(await query('SELECT from_stage_id, to_stage_id FROM deal_stage_history WHERE deal_id = ? ORDER BY created_at, id', deal.id)).toEqual([
      { from_stage_id: first.id, to_stage_id: second.id },
      { from_stage_id: second.id, to_stage_id: first.id },
      { from_stage_id: first.id, to_stage_id: second.id },
    ]);
    const events = await eventsOf(ws.id, 'deal.stage_changed');
    expect(events.map((e) => [e.data.from_stage_name, e.data.stage_name, e.data.pipeline_name])).toEqual([
      [first.name, second.name, sales.name],
      [second.name, first.name, sales.name],
      [first.name, second.name, sales.name],
    ]);
    expect(events[1].data).toMatchObject({ deal_id: deal.id, contact_id: deal.contact_id, title: 'Known', status: 'open', amount: 0 });
    const timeline = await query<{ data: string }>(
      `SELECT data FROM contact_activities WHERE workspace_id = ? AND type = 'deal_stage_changed' ORDER BY created_at, id`,
      ws.id,
    );
    expect(JSON.parse(timeline[1].data)).toEqual({
      deal_id: deal.id,
      from_stage_id: second.id,
      from_stage_name: second.name,
      to_stage_id: first.id,
      to_stage_name: first.name,
    });
  });

  it('the event carries what is true when the move is made, whoever changed the deal or stage before', async () => {
    const { ws, first, second, third, deal } = await movedDeal();
    await move(ws, deal.id, second.id);
    await move(ws, deal.id, first.id);

    // Another field of the deal changed (as by another instance).
    await query('UPDATE deals SET title = ? WHERE id = ?', 'Renamed elsewhere', deal.id);
    const retitled = await move(ws, deal.id, second.id);
    expect(retitled.roundTrips).toBe(2);
    expect((await eventsOf(ws.id, 'deal.stage_changed')).at(-1)!.data.title).toBe('Renamed elsewhere');

    // The target stage was renamed.
    await query('UPDATE stages SET name = ? WHERE id = ?', 'Qualified again', first.id);
    const renamed = await move(ws, deal.id, first.id);
    expect(renamed.roundTrips).toBe(2);
    expect((await eventsOf(ws.id, 'deal.stage_changed')).at(-1)!.data).toMatchObject({ stage_name: 'Qualified again', from_stage_name: second.name });

    // The deal's stage moved elsewhere: placed from where it really is, the columns stay dense.
    await query(
      'UPDATE deals SET stage_id = ?, position = (SELECT coalesce(min(position), 1) - 1 FROM deals WHERE stage_id = ?) WHERE id = ?',
      third.id,
      third.id,
      deal.id,
    );
    const elsewhere = await move(ws, deal.id, second.id);
    expect(elsewhere.roundTrips).toBe(2);
    expect((await eventsOf(ws.id, 'deal.stage_changed')).at(-1)!.data).toMatchObject({ from_stage_id: third.id, stage_id: second.id });
    for (const stage of [first, second, third]) expectDense(await column(ws.id, stage.id));
  });

  it('a deal or a stage that is gone writes nothing and answers 404', async () => {
    const { ws, first, second, deal } = await movedDeal();
    await move(ws, deal.id, second.id);
    await move(ws, deal.id, first.id);
    await query('DELETE FROM stages WHERE id = ?', second.id);
    const before = await footprint(ws);
    const noStage = await move(ws, deal.id, second.id);
    expect(noStage.status).toBe(404);
    expect(noStage.body.message).toBe('Stage not found');
    expect(await footprint(ws)).toEqual(before);
    expect((await query<{ stage_id: string }>('SELECT stage_id FROM deals WHERE id = ?', deal.id))[0].stage_id).toBe(first.id);

    const { ws: other, first: start, second: next, deal: doomed } = await movedDeal();
    await move(other, doomed.id, next.id);
    await move(other, doomed.id, start.id);
    const neighbour = (await other.api('POST', '/v1/deals', { title: 'Neighbour', phone: freshPhone() })).body;
    await query('DELETE FROM deals WHERE id = ?', doomed.id);
    const kept = await footprint(other);
    const noDeal = await move(other, doomed.id, next.id);
    expect(noDeal.status).toBe(404);
    expect(noDeal.body.message).toBe('Deal not found');
    expect(await footprint(other)).toEqual(kept);
    // The column it was known in is untouched: no slot opened or closed for a deal that is gone.
    expect(await column(other.id, start.id)).toEqual([{ id: neighbour.id, position: 0 }]);
  });

  it('parallel moves keep every column dense and write one history row, timeline row and event per move', async () => {
    const { ws, sales } = await movedDeal();
    const deals = [];
    for (let i = 0; i < 6; i++)
      deals.push((await ws.api('POST', '/v1/deals', { title: `D${i}`, phone: freshPhone(), stage_id: sales.stages[i % 3].id })).body);
    for (const d of deals)
      await ws.api('POST', `/v1/deals/${d.id}/stage`, { stage_id: sales.stages[(sales.stages.findIndex((s) => s.id === d.stage_id) + 1) % 3].id });
    const before = await footprint(ws);
    const results = await Promise.all(
      [...deals, ...deals].map((d, i) => ws.api('POST', `/v1/deals/${d.id}/stage`, { stage_id: sales.stages[i % 3].id, index: i % 4 })),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const after = await footprint(ws);
    const moves = after.history - before.history;
    expect(after.activities - before.activities).toBe(moves);
    expect(after.events - before.events).toBe(moves);
    const history = await query<{ deal_id: string; from_stage_id: string; to_stage_id: string }>(
      'SELECT deal_id, from_stage_id, to_stage_id FROM deal_stage_history WHERE workspace_id = ? ORDER BY created_at, id',
      ws.id,
    );
    // Each deal's history is a chain: every move starts where the one before it ended.
    for (const d of deals) {
      const chain = history.filter((h) => h.deal_id === d.id);
      chain.slice(1).forEach((h, i) => expect(h.from_stage_id).toBe(chain[i].to_stage_id));
      expect(chain.at(-1)!.to_stage_id).toBe((await query<{ stage_id: string }>('SELECT stage_id FROM deals WHERE id = ?', d.id))[0].stage_id);
    }
    let total = 0;
    for (const s of sales.stages) {
      const rows = await column(ws.id, s.id);
      expectDense(rows);
      total += rows.length;
    }
    expect(total).toBe(deals.length + 1);
  });
});
