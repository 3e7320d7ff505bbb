import type { ModuleManifest } from '../../platform/manifest';
import { noteRoutes } from './routes';

export const manifest: ModuleManifest = { name: 'notes', routes: [noteRoutes] };
