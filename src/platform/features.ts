import type { Feature, Workspace } from '../modules/workspaces/model';
import type { ApiError } from './errors';
import { FeatureGateErrors } from './shared-errors';

/**
 * The feature-gate table (feature ids in docs/operator-api.md): the middleware
 * and the test that walks every gated prefix both read this one list.
 */
export const FEATURE_GATES: ReadonlyArray<{ method?: string; pattern: RegExp; feature: Feature }> = [
  { pattern: /^\/v1\/deals(\/|$)/, feature: 'deals' },
  { pattern: /^\/v1\/pipelines(\/|$)/, feature: 'deals' },
  { pattern: /^\/v1\/payments(\/|$)/, feature: 'payments' },
  { method: 'GET', pattern: /^\/v1\/contacts\/[^/]+\/documents\/?$/, feature: 'payments' },
  { pattern: /^\/v1\/payment-requests(\/|$)/, feature: 'workspace_payments' },
  { pattern: /^\/v1\/orders(\/|$)/, feature: 'orders' },
  { pattern: /^\/v1\/campaigns(\/|$)/, feature: 'campaigns' },
  { pattern: /^\/v1\/bookings(\/|$)/, feature: 'booking' },
  { pattern: /^\/v1\/meeting-types(\/|$)/, feature: 'booking' },
  { pattern: /^\/v1\/email-campaigns(\/|$)/, feature: 'email_marketing' },
  { pattern: /^\/v1\/suppressions(\/|$)/, feature: 'email_marketing' },
  { method: 'GET', pattern: /^\/v1\/sender-profiles\/?$/, feature: 'email_marketing' },
  { pattern: /^\/v1\/newsletters(\/|$)/, feature: 'newsletters' },
  { pattern: /^\/v1\/newsletter-issues(\/|$)/, feature: 'newsletters' },
];

export function requiredFeature(method: string, path: string): Feature | null {
  for (const gate of FEATURE_GATES) {
    if (gate.method && gate.method !== method) continue;
    if (gate.pattern.test(path)) return gate.feature;
  }
  return null;
}

/** The 403 a workspace's plan answers for a route it does not include, or null when the plan includes it. */
export function featureRefusal(ws: Workspace, method: string, path: string): ApiError | null {
  const feature = requiredFeature(method, path);
  if (!feature || ws.features.includes(feature)) return null;
  return FeatureGateErrors.notIncluded({ feature });
}
