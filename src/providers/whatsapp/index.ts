import type { Bindings } from '../../env';
import type { Db } from '../../platform/d1/db';
import { SharedErrors } from '../../platform/shared-errors';
import { metaWhatsApp } from './meta';
import { sandboxOutbox } from '../sandbox-outbox';
import { sandboxWhatsApp } from './sandbox';
import type { WhatsAppProvider } from './types';

export * from './types';

/** Tests swap the provider (e.g. a fake Graph API behind `metaWhatsApp`). */
let override: ((env: Bindings, db: Db, ws: { id: string; whatsappPhoneNumberId: string }) => WhatsAppProvider) | null = null;
export function overrideWhatsAppProvider(factory: typeof override): void {
  override = factory;
}

/** The provider named by `WHATSAPP_PROVIDER` (`sandbox` by default, `meta` for the Cloud API). */
export function whatsappProvider(env: Bindings, db: Db, ws: { id: string; whatsappPhoneNumberId: string }): WhatsAppProvider {
  if (override) return override(env, db, ws);
  const name = env.WHATSAPP_PROVIDER || 'sandbox';
  if (name === 'sandbox') return sandboxWhatsApp(sandboxOutbox(), db, ws);
  if (name === 'meta') {
    if (!env.WHATSAPP_ACCESS_TOKEN) throw SharedErrors.whatsappTokenMissing();
    return metaWhatsApp({
      accessToken: env.WHATSAPP_ACCESS_TOKEN,
      phoneNumberId: ws.whatsappPhoneNumberId,
      version: env.WHATSAPP_GRAPH_VERSION || undefined,
    });
  }
  throw SharedErrors.unknownWhatsAppProvider({ name });
}
