import type { ModuleManifest } from '../../platform/manifest';
import { deliverNewsletters, DELIVERY_KIND, handleDeliveries } from './delivery';
import { registerNewsletterPageDocs } from './page-docs';
import { archivePages } from './pages';
import { newsletterRoutes } from './routes';
import { publishDueIssues } from './sweep';
import { newsletterPersonalData } from './personal-data';
import { autoSubscribeStatements } from './auto-subscribe';

export const manifest: ModuleManifest = {
  name: 'newsletters',
  personalData: newsletterPersonalData,
  tagsLinked: autoSubscribeStatements,
  routes: [newsletterRoutes],
  // The public archive (its docs also cover the one-click unsubscribe page).
  publicRoutes: [{ path: '/n', app: archivePages }],
  docs: registerNewsletterPageDocs,
  sweeps: { 'publish-issues': publishDueIssues, 'deliver-newsletters': deliverNewsletters },
  queueTasks: [{ kind: DELIVERY_KIND, run: handleDeliveries }],
  featureGates: [
    { pattern: /^\/v1\/newsletters(\/|$)/, feature: 'newsletters' },
    { pattern: /^\/v1\/newsletter-issues(\/|$)/, feature: 'newsletters' },
  ],
};
