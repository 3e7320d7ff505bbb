import type { ModuleManifest } from '../../platform/manifest';
import { emailProviderApp, registerEmailPublicDocs, trackingApp } from './public-routes';
import { emailRoutes } from './routes';
import { emailReadRoutes } from './read-routes';
import { emailPersonalData } from './personal-data';

export const manifest: ModuleManifest = {
  name: 'emails',
  personalData: emailPersonalData,
  routes: [emailRoutes, emailReadRoutes],
  // Opened from mail clients and called by providers: tokens and provider signatures instead of a key.
  publicRoutes: [
    { path: '/t', app: trackingApp },
    { path: '/providers/email', app: emailProviderApp },
  ],
  docs: registerEmailPublicDocs,
};
