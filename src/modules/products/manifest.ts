import type { ModuleManifest } from '../../platform/manifest';
import { productRoutes } from './routes';

export const manifest: ModuleManifest = { name: 'products', routes: [productRoutes] };
