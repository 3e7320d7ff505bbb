import type { ModuleManifest } from '../../platform/manifest';
import { sandboxOutboxPersonalData } from './personal-data';

export const manifest: ModuleManifest = { name: 'sandbox-outbox', personalData: sandboxOutboxPersonalData };
