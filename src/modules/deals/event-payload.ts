import type { DealRow } from './schema';
import { serializeDeal } from './read';

export type StageNames = { pipelineName: string | null; stageName: string | null };
export type FromStage = { stageId: string; stageName: string | null };

/** The deal event data (docs/events.md): the full field set with explicit nulls. */
export function dealEventData(deal: DealRow, names: StageNames, from: FromStage | null = null) {
  const d = serializeDeal(deal);
  return {
    deal_id: d.id,
    contact_id: d.contact_id,
    pipeline_id: d.pipeline_id,
    pipeline_name: names.pipelineName,
    stage_id: d.stage_id,
    stage_name: names.stageName,
    from_stage_id: from?.stageId ?? null,
    from_stage_name: from?.stageName ?? null,
    status: d.status,
    title: d.title,
    amount: d.amount,
    currency: d.currency,
    owner_user_id: d.owner_user_id,
    external_reference: d.external_reference,
    source: d.source,
    expected_close_at: d.expected_close_at,
    closed_at: d.closed_at,
    lost_reason: d.lost_reason,
  };
}
