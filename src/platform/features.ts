import type { Feature, Workspace } from './workspace';
import type { ApiError } from './errors';
import { FeatureGateErrors } from './shared-errors';

/** A `/v1` route prefix (optionally of one method) that the plan's `feature` unlocks. */
export type FeatureGate = { method?: string; pattern: RegExp; feature: Feature };

/**
 * The feature-gate table (feature ids in docs/operator-api.md): each module's manifest declares its
 * gates and the composition root (src/wiring.ts) hands the whole table in; the middleware reads it.
 */
let gates: readonly FeatureGate[] = [];

/** Called by the composition root only. */
export function wireFeatureGates(table: readonly FeatureGate[]): void {
  gates = table;
}

export function requiredFeature(method: string, path: string): Feature | null {
  for (const gate of gates) {
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
