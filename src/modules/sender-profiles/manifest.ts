import type { ModuleManifest } from '../../platform/manifest';
import { senderProfileRoutes } from './routes';

export const manifest: ModuleManifest = {
  name: 'sender-profiles',
  routes: [senderProfileRoutes],
  featureGates: [{ method: 'GET', pattern: /^\/v1\/sender-profiles\/?$/, feature: 'email_marketing' }],
};
