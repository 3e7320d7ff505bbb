import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guarded, nowIso, type Statement } from '../../platform/d1/db';
import { runOperation, unchanged } from '../../platform/d1/operation';
import { uuidv7 } from '../../platform/ids';
import type { OutboxEvent } from '../../platform/outbox';
import { dealEventData, type FromStage } from './event-payload';
import { selectDealWithStage, selectStage } from './lookups';
import { placeDeal } from './placement';
import { guardOf } from '../../platform/d1/constraints';
import { selectDeal, serializeDeal } from './read';
import { activity } from '../contacts';
import { deals, dealStageHistory, type DealRow, type DealStatus } from './schema';
import { preparedInsert } from '../../platform/d1/prepared';
import { DealErrors } from './errors';
import { PipelineErrors } from '../pipelines';

const historyInsert = preparedInsert(dealStageHistory);

export type StageTarget = { stageId: string; pipelineId: string; stageName: string; pipelineName: string };

/**
 * The statements of a stage-route move: when the stage changes, the history entry, the timeline
 * activity and `deal.stage_changed`, then the placement. Shared with the `external_reference`
 * upsert, which moves the same way.
 */
export function stageChangeStatements(ctx: ServiceContext, deal: DealRow, from: FromStage, to: StageTarget, index: number, now: string) {
  const changes = deal.stageId !== to.stageId;
  const placement: Statement[] = placeDeal(ctx.db, {
    workspaceId: ctx.ws.id,
    dealId: deal.id,
    fromStageId: deal.stageId,
    toStageId: to.stageId,
    toPipelineId: to.pipelineId,
    index,
    stageEnteredAt: changes ? now : null,
    updatedAt: now,
  });
  if (!changes) return { statements: placement, events: [] as OutboxEvent[] };
  const moved: DealRow = { ...deal, stageId: to.stageId, pipelineId: to.pipelineId, stageEnteredAt: now, updatedAt: now };
  const { event, statement } = ctx.events.emit(ctx.db, ctx.ws.id, 'deal.stage_changed', dealEventData(moved, to, from));
  const history = historyInsert.in(ctx.db, {
    id: uuidv7(),
    workspaceId: ctx.ws.id,
    dealId: deal.id,
    fromPipelineId: deal.pipelineId,
    fromStageId: deal.stageId,
    toPipelineId: to.pipelineId,
    toStageId: to.stageId,
    changedBy: null,
    source: 'api',
    createdAt: now,
  });
  const timeline = activity(
    ctx,
    deal.contactId,
    'deal_stage_changed',
    'api',
    { deal_id: deal.id, from_stage_id: deal.stageId, from_stage_name: from.stageName, to_stage_id: to.stageId, to_stage_name: to.stageName },
    now,
  );
  return { statements: [history, timeline, statement, ...placement], events: [event] };
}

/**
 * `POST /v1/deals/{id}/stage`: the bare row after the move or reorder (a read batch, then the
 * move's batch); a move that lost a race re-reads and moves again.
 */
export function changeDealStage(ctx: ServiceContext, dealId: string, input: { stage_id: string; index?: number }) {
  return runOperation(ctx, {
    reads: { current: selectDealWithStage(ctx, 'id', dealId), target: selectStage(ctx, input.stage_id.toLowerCase()) },
    decide: (read, batch) => {
      const [current] = read.current;
      const [target] = read.target;
      if (!current) throw DealErrors.notFound();
      if (!target) throw PipelineErrors.stageNotFound();
      const to = { stageId: target.stage.id, pipelineId: target.stage.pipelineId, stageName: target.stage.name, pipelineName: target.pipelineName };
      const from = { stageId: current.deal.stageId, stageName: current.stageName };
      batch.add(stageChangeStatements(ctx, current.deal, from, to, input.index ?? 0, nowIso()));
      return batch.answer(selectDeal(ctx.db, ctx.ws.id, dealId), ([row]) => {
        if (!row) throw DealErrors.notFound();
        return serializeDeal(row);
      });
    },
    lostRaceOn: [guardOf(deals.stageId)],
  });
}

/** `POST /v1/deals/{id}/status`: open, won or lost; the bare row. */
export function changeDealStatus(ctx: ServiceContext, dealId: string, input: { status: DealStatus; lost_reason?: string }) {
  return runOperation(ctx, {
    reads: { current: selectDealWithStage(ctx, 'id', dealId) },
    decide: (read, batch) => {
      const [current] = read.current;
      if (!current) throw DealErrors.notFound();
      const deal = current.deal;
      if (deal.status === input.status) return unchanged(serializeDeal(deal));
      const now = nowIso();
      const closing = input.status !== 'open';
      const changed: DealRow = {
        ...deal,
        status: input.status,
        closedAt: closing ? now : null,
        lostReason: input.status === 'lost' ? (input.lost_reason ?? null) : null,
        updatedAt: now,
      };
      batch.write(
        ctx.db
          .update(deals)
          .set({
            // Applies only to the status that was read; otherwise the batch fails and runs again.
            status: guarded(sql`${deals.status} = ${deal.status}`, sql`${input.status}`),
            closedAt: changed.closedAt,
            lostReason: changed.lostReason,
            updatedAt: now,
          })
          .where(and(eq(deals.workspaceId, ctx.ws.id), eq(deals.id, deal.id))),
        activity(
          ctx,
          deal.contactId,
          'deal_status_changed',
          'api',
          { deal_id: deal.id, from_status: deal.status, to_status: input.status, lost_reason: changed.lostReason },
          now,
        ),
      );
      // Reopening fires no automation.
      if (closing) {
        const outcome = input.status === 'won' ? 'deal.won' : 'deal.lost';
        batch.emit(outcome, dealEventData(changed, { pipelineName: current.pipelineName, stageName: current.stageName }));
        if (deal.contactId) batch.signal(deal.contactId, outcome);
      }
      return batch.answer(selectDeal(ctx.db, ctx.ws.id, dealId), ([row]) => serializeDeal(row));
    },
    lostRaceOn: [guardOf(deals.status)],
  });
}
