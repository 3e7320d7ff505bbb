import type { ModuleManifest } from '../../platform/manifest';
import { suppressionRoutes } from './routes';
import { moveShardSuppressions } from './sweep';

export const manifest: ModuleManifest = {
  name: 'suppressions',
  routes: [suppressionRoutes],
  sweeps: { 'global-suppressions': moveShardSuppressions },
  featureGates: [{ pattern: /^\/v1\/suppressions(\/|$)/, feature: 'email_marketing' }],
};
