import type { ModuleManifest } from '../../platform/manifest';
import { paymentRoutes } from './routes';
import { sweepRecurringPayments } from './sweep';

export const manifest: ModuleManifest = {
  name: 'payments',
  routes: [paymentRoutes],
  sweeps: { 'recurring-payments': sweepRecurringPayments },
  featureGates: [{ pattern: /^\/v1\/payments(\/|$)/, feature: 'payments' }],
};
