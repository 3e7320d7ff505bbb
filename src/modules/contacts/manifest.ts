import type { ModuleManifest } from '../../platform/manifest';
import { consentRoutes } from './consent/routes';
import { labelRoutes } from './labels/routes';
import { contactRoutes } from './routes';

export const manifest: ModuleManifest = { name: 'contacts', routes: [contactRoutes, consentRoutes, labelRoutes] };
