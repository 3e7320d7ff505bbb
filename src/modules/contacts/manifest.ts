import type { ModuleManifest } from '../../platform/manifest';
import { redriveContactJobs } from './bulk/redrive';
import { bulkRoutes } from './bulk/routes';
import { consentRoutes } from './consent/routes';
import { ContactErrors } from './errors';
import { EXPORT_KIND, processExport } from './exports/process';
import { exportRoutes } from './exports/routes';
import { expireContactExports } from './exports/service';
import { IMPORT_MAX_BYTES } from './imports/file';
import { IMPORT_KIND, processImport } from './imports/process';
import { importRoutes } from './imports/routes';
import { labelRoutes } from './labels/routes';
import { contactRoutes } from './routes';
import { contactCustomValues, contactSearchSpaces } from './schema';

export const manifest: ModuleManifest = {
  name: 'contacts',
  routes: [contactRoutes, bulkRoutes, importRoutes, exportRoutes, consentRoutes, labelRoutes],
  fileUploads: [{ method: 'POST', pattern: /^\/v1\/contact-imports\/?$/, limit: IMPORT_MAX_BYTES, tooLarge: ContactErrors.importTooLarge }],
  queueTasks: [
    { kind: IMPORT_KIND, run: processImport, inTurn: true },
    { kind: EXPORT_KIND, run: processExport, inTurn: true },
  ],
  sweeps: { 'contact-exports': expireContactExports, 'contact-jobs': redriveContactJobs },
  notMoved: [
    { table: contactCustomValues, why: "derived from each contact's custom_fields by the target shard's triggers as the contact is copied" },
    { table: contactSearchSpaces, why: 'the target shard numbers the workspace itself, with the first contact, payment or deal copied there' },
  ],
};
