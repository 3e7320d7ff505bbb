import type { ModuleManifest } from '../../platform/manifest';
import { PAGE_KIND, SEND_KIND, type SendMessage } from './campaigns';
import { handlePage, sendChunk } from './fanout';
import { whatsappRoutes } from './routes';
import { sweepCampaignSchedules } from './sweep';
import { registerWhatsAppWebhookDocs, whatsappWebhook } from './webhook-routes';
import { whatsappPersonalData } from './personal-data';

export const manifest: ModuleManifest = {
  name: 'whatsapp',
  personalData: whatsappPersonalData,
  routes: [whatsappRoutes],
  // Meta's webhook, verified by its signature over the raw body.
  publicRoutes: [{ path: '/providers/whatsapp', app: whatsappWebhook }],
  docs: registerWhatsAppWebhookDocs,
  sweeps: { 'campaign-schedules': sweepCampaignSchedules },
  // A campaign's fan-out: its page messages on the send queue, and the chunks earlier releases enqueued on their own.
  queueTasks: [
    { kind: PAGE_KIND, run: handlePage, inTurn: true },
    { kind: SEND_KIND, run: (env, body: SendMessage) => sendChunk(env, body, body.contact_ids) },
  ],
  featureGates: [{ pattern: /^\/v1\/campaigns(\/|$)/, feature: 'campaigns' }],
};
