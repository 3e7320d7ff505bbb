import type { Bindings } from '../../env';
import type { Db } from '../../platform/d1/db';
import type { SweepResult } from '../../platform/manifest';
import { redriveStaleCampaigns } from './fanout';
import { launchDueCampaigns } from './launch';

/** Email campaigns' share of the `campaign-schedules` sweep (src/modules/whatsapp/sweep.ts): due launches, then fan-outs whose lease lapsed re-driven (src/platform/fanout/lease.ts). */
export async function runDueEmailCampaigns(env: Bindings, db: Db): Promise<SweepResult> {
  return {
    email_campaigns_started: await launchDueCampaigns(env, db),
    email_campaigns_redriven: await redriveStaleCampaigns(env, db),
  };
}
