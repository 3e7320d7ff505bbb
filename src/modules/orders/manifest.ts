import type { ModuleManifest } from '../../platform/manifest';
import { orderRoutes } from './routes';
import { orderPersonalData } from './personal-data';

export const manifest: ModuleManifest = {
  name: 'orders',
  personalData: orderPersonalData,
  routes: [orderRoutes],
  featureGates: [{ pattern: /^\/v1\/orders(\/|$)/, feature: 'orders' }],
};
