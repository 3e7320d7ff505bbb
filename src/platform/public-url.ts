import type { Bindings } from '../env';

/** The origin of links the service hands out (tracking, ...): `PUBLIC_BASE_URL`, else the request's own origin. */
export const publicBaseUrl = (env: Bindings, requestUrl: string) => (env.PUBLIC_BASE_URL || new URL(requestUrl).origin).replace(/\/+$/, '');
