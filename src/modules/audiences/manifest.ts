import type { ModuleManifest } from '../../platform/manifest';
import { audienceRoutes } from './routes';

export const manifest: ModuleManifest = { name: 'audiences', routes: [audienceRoutes] };
