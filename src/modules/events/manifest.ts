import type { ModuleManifest } from '../../platform/manifest';
import { registerEventWebhooks } from './payloads';

/** The event catalogue: documented as the reference's webhooks. */
export const manifest: ModuleManifest = { name: 'events', docs: registerEventWebhooks };
