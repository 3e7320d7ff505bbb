import type { ModuleManifest } from '../../platform/manifest';
import { contactRoutes } from './routes';

export const manifest: ModuleManifest = { name: 'contacts', routes: [contactRoutes] };
