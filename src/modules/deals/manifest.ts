import type { ModuleManifest } from '../../platform/manifest';
import { dealRoutes } from './routes';
import { dealPersonalData } from './personal-data';

export const manifest: ModuleManifest = {
  name: 'deals',
  personalData: dealPersonalData,
  routes: [dealRoutes],
  featureGates: [{ pattern: /^\/v1\/deals(\/|$)/, feature: 'deals' }],
};
