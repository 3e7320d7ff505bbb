import type { ModuleManifest } from '../../platform/manifest';
import { formPersonalData } from './personal-data';

export const manifest: ModuleManifest = { name: 'forms', personalData: formPersonalData };
