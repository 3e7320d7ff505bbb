import type { ModuleManifest } from '../../platform/manifest';
import { pipelineRoutes } from './routes';

export const manifest: ModuleManifest = {
  name: 'pipelines',
  routes: [pipelineRoutes],
  featureGates: [{ pattern: /^\/v1\/pipelines(\/|$)/, feature: 'deals' }],
};
