import type { ModuleManifest } from '../../platform/manifest';
import { audienceRoutes } from './routes';
import { audiencePersonalData } from './personal-data';

export const manifest: ModuleManifest = { name: 'audiences', personalData: audiencePersonalData, routes: [audienceRoutes] };
