import type { ModuleManifest } from '../../platform/manifest';
import { registerBookingPageDocs } from './page-docs';
import { bookingPages } from './pages';
import { bookingRoutes } from './routes';
import { sweepBookingStatus } from './sweep';
import { bookingPersonalData } from './personal-data';

export const manifest: ModuleManifest = {
  name: 'bookings',
  personalData: bookingPersonalData,
  routes: [bookingRoutes],
  // The hosted booking and manage pages.
  publicRoutes: [{ path: '/book', app: bookingPages }],
  docs: registerBookingPageDocs,
  sweeps: { 'bookings-status': sweepBookingStatus },
  featureGates: [
    { pattern: /^\/v1\/bookings(\/|$)/, feature: 'booking' },
    { pattern: /^\/v1\/meeting-types(\/|$)/, feature: 'booking' },
  ],
};
