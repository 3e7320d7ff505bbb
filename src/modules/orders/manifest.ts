import type { ModuleManifest } from '../../platform/manifest';
import { orderRoutes } from './routes';

export const manifest: ModuleManifest = {
  name: 'orders',
  routes: [orderRoutes],
  featureGates: [{ pattern: /^\/v1\/orders(\/|$)/, feature: 'orders' }],
};
