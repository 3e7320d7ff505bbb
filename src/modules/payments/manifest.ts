import type { ModuleManifest } from '../../platform/manifest';
import { paymentRoutes } from './routes';
import { sweepRecurringPayments } from './sweep';
import { paymentPersonalData } from './personal-data';

export const manifest: ModuleManifest = {
  name: 'payments',
  personalData: paymentPersonalData,
  routes: [paymentRoutes],
  sweeps: { 'recurring-payments': sweepRecurringPayments },
  featureGates: [{ pattern: /^\/v1\/payments(\/|$)/, feature: 'payments' }],
};
