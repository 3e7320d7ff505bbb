import type { Bindings } from '../env';

/** The origin of links the service hands out (pay, booking and manage pages, email tracking links): `PUBLIC_BASE_URL`, else the request's own origin. */
export const publicBaseUrl = (env: Bindings, requestUrl: string) => (env.PUBLIC_BASE_URL?.trim() || new URL(requestUrl).origin).replace(/\/+$/, '');
