import type { ModuleManifest } from '../../platform/manifest';
import { paymentPublicRoutes, registerPaymentPublicDocs } from './public';
import { paymentRequestRoutes } from './routes';
import { sweepExpiredPaymentRequests } from './sweep';
import { paymentRequestPersonalData } from './personal-data';

export const manifest: ModuleManifest = {
  name: 'payment-requests',
  personalData: paymentRequestPersonalData,
  routes: [paymentRequestRoutes],
  // The hosted pay page and the payment provider's webhook.
  publicRoutes: [{ path: '/', app: paymentPublicRoutes }],
  docs: registerPaymentPublicDocs,
  sweeps: { 'expire-payment-requests': sweepExpiredPaymentRequests },
  featureGates: [
    { pattern: /^\/v1\/payment-requests(\/|$)/, feature: 'workspace_payments' },
    // `GET /v1/contacts/{id}/documents`, served by this module.
    { method: 'GET', pattern: /^\/v1\/contacts\/[^/]+\/documents\/?$/, feature: 'payments' },
  ],
};
