import type { InferSelectModel } from 'drizzle-orm';
import type { workspaces } from './control-schema';

export type Workspace = InferSelectModel<typeof workspaces>;

export const FEATURES = [
  'deals',
  'payments',
  'workspace_payments',
  'orders',
  'campaigns',
  'booking',
  'email_marketing',
  'newsletters',
] as const;
export type Feature = (typeof FEATURES)[number];

export const DEFAULT_RATE_LIMITS = { per_key_per_minute: 100, emails_per_minute: 300 } as const;

export const hasFeature = (ws: Workspace, feature: Feature) => ws.features.includes(feature);
