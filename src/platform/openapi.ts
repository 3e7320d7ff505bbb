import { z } from '@hono/zod-openapi';

export const FrameworkError = z
  .object({
    statusCode: z.number().int(),
    message: z.union([z.string(), z.array(z.string())]),
    error: z.string(),
    error_code: z.string().optional(),
  })
  .passthrough()
  .openapi('FrameworkError', { description: 'Framework shape; `message` is a string or per-field strings' });

export const DomainError = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .openapi('DomainError', { description: 'Domain envelope; key on `error.code`' });

export const FeatureGateError = z
  .object({ message: z.string(), error_code: z.literal('FEATURE_NOT_INCLUDED_IN_PLAN') })
  .openapi('FeatureGateError');

const DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failure, unknown body property, non-UUID path id or malformed query',
  401: '`Missing API key` or `Invalid API key`',
  403: 'Plan without API access, or the plan lacks the feature (`FEATURE_NOT_INCLUDED_IN_PLAN`)',
  404: 'Not found in this workspace',
  409: 'Conflict',
  413: 'Request body too large',
  415: 'Body is not JSON',
  429: 'Rate limit exceeded; see `Retry-After`',
};

type Shape = 'framework' | 'domain';

/**
 * Error responses for a route. 400/401/403/413/415/429 are always possible on
 * /v1 and always listed; `extra` adds route-specific statuses in the route's shape.
 */
export function errorResponses(extra: Partial<Record<number, { shape?: Shape; description?: string }>> = {}) {
  const framework = { content: { 'application/json': { schema: FrameworkError } } };
  const out: Record<number, { description: string; content: Record<string, { schema: z.ZodTypeAny }> }> = {
    400: { description: DESCRIPTIONS[400], ...framework },
    401: { description: DESCRIPTIONS[401], ...framework },
    403: {
      description: DESCRIPTIONS[403],
      content: { 'application/json': { schema: z.union([FrameworkError, FeatureGateError]) } },
    },
    413: { description: DESCRIPTIONS[413], ...framework },
    415: { description: DESCRIPTIONS[415], ...framework },
    429: { description: DESCRIPTIONS[429], ...framework },
  };
  for (const [status, spec] of Object.entries(extra)) {
    const code = Number(status);
    const schema = spec?.shape === 'domain' ? DomainError : FrameworkError;
    const prior = out[code];
    out[code] = {
      description: spec?.description ?? DESCRIPTIONS[code] ?? 'Error',
      content: { 'application/json': { schema: prior && prior.content['application/json'].schema !== schema ? z.union([prior.content['application/json'].schema, schema]) : schema } },
    };
  }
  return out;
}

export const jsonContent = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const jsonBody = <T extends z.ZodTypeAny>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

export const bearer = [{ bearerAuth: [] }];
