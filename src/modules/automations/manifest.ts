import type { ModuleManifest } from '../../platform/manifest';
import { AUTOMATION_EVENT_KIND, automationListener, handleAutomationEvents } from './listener';
import { automationPersonalData } from './personal-data';
import { automationRoutes } from './routes';
import { startStalledEnrollments } from './sweep';

/** Automations: definitions and enrollments over the API, runs on Workflows, reacting to the outbox's committed events. */
export const manifest: ModuleManifest = {
  name: 'automations',
  routes: [automationRoutes],
  sweeps: { 'automation-starts': startStalledEnrollments },
  queueTasks: [{ kind: AUTOMATION_EVENT_KIND, runBatch: handleAutomationEvents }],
  eventListener: automationListener,
  personalData: automationPersonalData,
};
