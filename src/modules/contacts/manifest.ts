import type { ModuleManifest } from '../../platform/manifest';
import { bulkRoutes } from './bulk/routes';
import { consentRoutes } from './consent/routes';
import { labelRoutes } from './labels/routes';
import { contactRoutes } from './routes';

export const manifest: ModuleManifest = { name: 'contacts', routes: [contactRoutes, bulkRoutes, consentRoutes, labelRoutes] };
