import type { ModuleManifest } from '../../platform/manifest';
import { unsubscribePages } from './pages';

/** The one-click unsubscribe page (its docs are the newsletters module's). */
export const manifest: ModuleManifest = { name: 'unsubscribe', publicRoutes: [{ path: '/u', app: unsubscribePages }] };
