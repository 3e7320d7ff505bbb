import type { ModuleManifest } from '../../platform/manifest';
import { registerEventWebhooks } from './payloads';
import { eventPersonalData } from './personal-data';

/** The event catalogue: documented as the reference's webhooks. */
export const manifest: ModuleManifest = { name: 'events', personalData: eventPersonalData, docs: registerEventWebhooks };
