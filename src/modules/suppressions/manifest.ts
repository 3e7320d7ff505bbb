import type { ModuleManifest } from '../../platform/manifest';
import { suppressionRoutes } from './routes';
import { moveShardSuppressions } from './sweep';
import { suppressionPersonalData } from './personal-data';
import { globalEmailSuppressions } from './schema';

export const manifest: ModuleManifest = {
  name: 'suppressions',
  personalData: suppressionPersonalData,
  routes: [suppressionRoutes],
  notMoved: [
    {
      table: globalEmailSuppressions,
      why: "no workspace's: the list every workspace shares, left on the shards by earlier releases and moved to the control plane by the global-suppressions sweep",
    },
  ],
  sweeps: { 'global-suppressions': moveShardSuppressions },
  featureGates: [{ pattern: /^\/v1\/suppressions(\/|$)/, feature: 'email_marketing' }],
};
