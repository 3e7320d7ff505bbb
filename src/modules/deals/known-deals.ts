import { sql } from 'drizzle-orm';
import { Lru } from '../../platform/lru';
import type { RowGuard } from '../../platform/row-guard';
import type { FromStage } from './events';
import type { StageTarget } from './moves';
import type { DealRow } from './schema';

/**
 * Deals and stages as this instance last read or wrote them, per workspace: a stage move of a
 * known deal to a known stage is sent without reading first (one round trip), guarded on
 * everything the move's history row, timeline row and event are built from still being so. A
 * stale entry costs a round trip, never a wrong row or event.
 */
const knownDeals = new Lru<{ deal: DealRow; from: FromStage }>(5000);
const knownStages = new Lru<StageTarget>(2000);

const key = (workspaceId: string, id: string) => `${workspaceId}:${id}`;

export const knownDeal = (workspaceId: string, dealId: string) => knownDeals.get(key(workspaceId, dealId));
export const knownStage = (workspaceId: string, stageId: string) => knownStages.get(key(workspaceId, stageId));
export const forgetDeal = (workspaceId: string, dealId: string) => knownDeals.delete(key(workspaceId, dealId));

/** The deal as a committed write left it, in `stage` (whose names that write used). */
export function rememberDeal(workspaceId: string, deal: DealRow, stage: StageTarget) {
  knownDeals.set(key(workspaceId, deal.id), { deal, from: { stageId: stage.stageId, stageName: stage.stageName } });
  knownStages.set(key(workspaceId, stage.stageId), stage);
}

const p = (name: string) => sql.placeholder(name);

/**
 * The deal's fields a move's rows and event carry, its stage's name, and the target stage with
 * its pipeline and both names, all as remembered. The move's own placeholders (`ws`, `deal`,
 * `fromStage`, `toStage`, `toPipeline`) name the deal and the stages. No statement of the move
 * changes what it reads before the last one has checked it: each holds it or none does.
 */
const unchanged = sql`EXISTS (SELECT 1 FROM deals k WHERE k.workspace_id = ${p('ws')} AND k.id = ${p('deal')} AND k.stage_id = ${p('fromStage')}
    AND k.pipeline_id = ${p('knownPipeline')} AND k.contact_id IS ${p('knownContact')} AND k.status = ${p('knownStatus')} AND k.title = ${p('knownTitle')}
    AND k.amount_cents = ${p('knownAmount')} AND k.currency = ${p('knownCurrency')} AND k.owner_user_id IS ${p('knownOwner')}
    AND k.external_reference IS ${p('knownReference')} AND k.source IS ${p('knownSource')} AND k.expected_close_at IS ${p('knownExpected')}
    AND k.closed_at IS ${p('knownClosed')} AND k.lost_reason IS ${p('knownLost')})
  AND (SELECT name FROM stages WHERE id = ${p('fromStage')}) IS ${p('knownFromName')}
  AND EXISTS (SELECT 1 FROM stages s JOIN pipelines q ON q.id = s.pipeline_id WHERE s.workspace_id = ${p('ws')} AND s.id = ${p('toStage')}
    AND s.pipeline_id = ${p('toPipeline')} AND s.name = ${p('knownToName')} AND q.name = ${p('knownToPipelineName')})`;

/** The guard of a move built from remembered state: it writes only if that state still stands. */
export function unchangedGuard(workspaceId: string, known: { deal: DealRow; from: FromStage }, to: StageTarget): RowGuard {
  const d = known.deal;
  return {
    condition: unchanged,
    values: {
      ws: workspaceId,
      deal: d.id,
      fromStage: d.stageId,
      toStage: to.stageId,
      toPipeline: to.pipelineId,
      knownPipeline: d.pipelineId,
      knownContact: d.contactId,
      knownStatus: d.status,
      knownTitle: d.title,
      knownAmount: d.amountCents,
      knownCurrency: d.currency,
      knownOwner: d.ownerUserId,
      knownReference: d.externalReference,
      knownSource: d.source,
      knownExpected: d.expectedCloseAt,
      knownClosed: d.closedAt,
      knownLost: d.lostReason,
      knownFromName: known.from.stageName,
      knownToName: to.stageName,
      knownToPipelineName: to.pipelineName,
    },
  };
}
