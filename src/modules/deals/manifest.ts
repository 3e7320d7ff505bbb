import type { ModuleManifest } from '../../platform/manifest';
import { dealRoutes } from './routes';

export const manifest: ModuleManifest = {
  name: 'deals',
  routes: [dealRoutes],
  featureGates: [{ pattern: /^\/v1\/deals(\/|$)/, feature: 'deals' }],
};
