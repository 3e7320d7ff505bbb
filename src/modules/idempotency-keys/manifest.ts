import type { ModuleManifest } from '../../platform/manifest';
import { forgetOldKeys } from './sweep';
import { idempotencyKeyPersonalData } from './personal-data';

/** Its middleware runs in every `/v1` request's chain (src/app.ts); here, forgetting old keys. */
export const manifest: ModuleManifest = {
  name: 'idempotency-keys',
  personalData: idempotencyKeyPersonalData,
  sweeps: { 'idempotency-keys': forgetOldKeys },
};
