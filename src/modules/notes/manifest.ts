import type { ModuleManifest } from '../../platform/manifest';
import { noteRoutes } from './routes';
import { notePersonalData } from './personal-data';

export const manifest: ModuleManifest = { name: 'notes', personalData: notePersonalData, routes: [noteRoutes] };
