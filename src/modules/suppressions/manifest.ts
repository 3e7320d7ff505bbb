import type { ModuleManifest } from '../../platform/manifest';
import { suppressionRoutes } from './routes';
import { moveShardSuppressions } from './sweep';
import { suppressionPersonalData } from './personal-data';

export const manifest: ModuleManifest = {
  name: 'suppressions',
  personalData: suppressionPersonalData,
  routes: [suppressionRoutes],
  sweeps: { 'global-suppressions': moveShardSuppressions },
  featureGates: [{ pattern: /^\/v1\/suppressions(\/|$)/, feature: 'email_marketing' }],
};
