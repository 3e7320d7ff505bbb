import type { InferSelectModel } from 'drizzle-orm';
import type { workspaces } from './control-schema';

export type Workspace = InferSelectModel<typeof workspaces>;

export const FEATURES = ['deals', 'payments', 'workspace_payments', 'orders', 'campaigns', 'booking', 'email_marketing', 'newsletters'] as const;
export type Feature = (typeof FEATURES)[number];

/** `bookings_per_hour`: bookings through the hosted booking page and its embed (src/platform/public-limits.ts). */
export const DEFAULT_RATE_LIMITS = { per_key_per_minute: 100, emails_per_minute: 300, bookings_per_hour: 100 } as const;

export const hasFeature = (ws: Workspace, feature: Feature) => ws.features.includes(feature);
