import type { Bindings } from '../env';
import type { Db } from '../platform/d1/db';
import { registerSweep, type SweepResult } from './registry';

/**
 * The `campaign-schedules` sweep: one sweep for every campaign kind. Each kind
 * (WhatsApp campaigns, email campaigns, ...) registers how it starts its due
 * scheduled campaigns on one shard and reports its own counts (prefixed with
 * its kind, e.g. `whatsapp_campaigns_started`); the sweep runs them all and
 * merges the counts.
 */
export type DueCampaignExecutor = (env: Bindings, db: Db) => Promise<SweepResult>;

const executors = new Map<string, DueCampaignExecutor>();

export function registerDueCampaignExecutor(kind: string, executor: DueCampaignExecutor): void {
  executors.set(kind, executor);
}

export async function sweepCampaignSchedules(env: Bindings, db: Db): Promise<SweepResult> {
  const result: SweepResult = {};
  for (const execute of executors.values()) Object.assign(result, await execute(env, db));
  return result;
}

registerSweep('campaign-schedules', sweepCampaignSchedules);
