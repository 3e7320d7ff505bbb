import type { Bindings } from '../../env';
import type { Db } from '../../platform/d1/db';
import type { SweepResult } from '../../platform/manifest';
import { runDueEmailCampaigns } from '../email-campaigns';
import { executeDueWhatsAppCampaigns } from './campaigns';
import { redriveStaleCampaigns } from './fanout';

/**
 * `campaign-schedules`: one sweep for every campaign channel. On one shard it starts WhatsApp's due
 * scheduled campaigns and re-drives its fan-outs whose lease lapsed (src/platform/fanout/lease.ts), then email campaigns do the same; each
 * channel reports its own counts, prefixed with its name (`whatsapp_campaigns_started`, ...).
 */
export async function sweepCampaignSchedules(env: Bindings, db: Db): Promise<SweepResult> {
  return {
    whatsapp_campaigns_started: await executeDueWhatsAppCampaigns(env, db),
    whatsapp_campaigns_redriven: await redriveStaleCampaigns(env, db),
    ...(await runDueEmailCampaigns(env, db)),
  };
}
