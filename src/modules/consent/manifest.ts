import type { ModuleManifest } from '../../platform/manifest';
import { consentRoutes } from './routes';

export const manifest: ModuleManifest = { name: 'consent', routes: [consentRoutes] };
