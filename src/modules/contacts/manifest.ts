import type { ModuleManifest } from '../../platform/manifest';
import { consentRoutes } from './consent/routes';
import { labelRoutes } from './labels/routes';
import { contactRoutes } from './routes';
import { contactCustomValues, contactSearchSpaces } from './schema';

export const manifest: ModuleManifest = {
  name: 'contacts',
  routes: [contactRoutes, consentRoutes, labelRoutes],
  notMoved: [
    { table: contactCustomValues, why: "derived from each contact's custom_fields by the target shard's triggers as the contact is copied" },
    { table: contactSearchSpaces, why: 'the target shard numbers the workspace itself, with the first contact, payment or deal copied there' },
  ],
};
