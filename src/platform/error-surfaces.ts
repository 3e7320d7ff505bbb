/**
 * Which body shape a request's errors answer, by the path they answer on (README "Errors"): one
 * table, read when an error is rendered and when a route's errors are documented, so a throw site
 * never chooses a shape and the document says what the service answers.
 */

/** What a surface answers: a module's own coded errors in the domain envelope, and request-shape violations too. */
export type Surface = { readonly envelope: boolean; readonly requestShapeInEnvelope: boolean };

export const FRAMEWORK_SURFACE: Surface = { envelope: false, requestShapeInEnvelope: false };
export const ENVELOPE_SURFACE: Surface = { envelope: true, requestShapeInEnvelope: false };
const ENVELOPE_EVEN_FOR_REQUEST_SHAPE: Surface = { envelope: true, requestShapeInEnvelope: true };

/** A path covers the paths under it; `{name}` is one path segment. */
const ENVELOPE_PATHS: readonly { path: string; method?: string; surface: Surface }[] = [
  { path: '/v1/contacts/{id}/consent', surface: ENVELOPE_EVEN_FOR_REQUEST_SHAPE },
  { path: '/v1/products', surface: ENVELOPE_SURFACE },
  { path: '/v1/webhook-endpoints', surface: ENVELOPE_SURFACE },
  { path: '/v1/webhook-events', surface: ENVELOPE_SURFACE },
  { path: '/v1/emails', surface: ENVELOPE_SURFACE },
  { path: '/v1/suppressions', surface: ENVELOPE_EVEN_FOR_REQUEST_SHAPE },
  { path: '/v1/email-campaigns', surface: ENVELOPE_SURFACE },
  { path: '/v1/newsletters', surface: ENVELOPE_SURFACE },
  { path: '/v1/newsletter-issues', surface: ENVELOPE_SURFACE },
  { path: '/v1/campaigns/{id}/execute', method: 'POST', surface: ENVELOPE_SURFACE },
  { path: '/v1/automations', surface: ENVELOPE_SURFACE },
  { path: '/v1/automation-enrollments', surface: ENVELOPE_SURFACE },
  // The operator's routes into these modules answer as the modules' own routes do.
  { path: '/admin/v1/workspaces/{ws}/snippets', surface: ENVELOPE_SURFACE },
  { path: '/admin/v1/workspaces/{ws}/newsletters', surface: ENVELOPE_SURFACE },
];

/** A path template's segments as a pattern: `{name}` matches any one segment, a template's own `{name}` included. */
const patternOf = (path: string) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}(/|$)`, 'i');
const TABLE = ENVELOPE_PATHS.map((row) => ({ ...row, pattern: patternOf(row.path) }));

/** The surface of a request (`/v1/products/…`) or of a documented operation (`/v1/products/{id}`). */
export function surfaceOf(method: string, path: string): Surface {
  const row = TABLE.find((r) => r.pattern.test(path) && (!r.method || r.method === method.toUpperCase()));
  return row?.surface ?? FRAMEWORK_SURFACE;
}
