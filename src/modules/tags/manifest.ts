import type { ModuleManifest } from '../../platform/manifest';
import { labelRoutes } from './routes';

export const manifest: ModuleManifest = { name: 'tags', routes: [labelRoutes] };
