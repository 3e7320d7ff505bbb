import type { Bindings } from '../env';

const trimmed = (origin: string | null | undefined) => origin?.trim().replace(/\/+$/, '') || null;

/** The origin of links the service hands out (pay, booking and manage pages, email tracking links): `PUBLIC_BASE_URL`, else the request's own origin. */
export const publicBaseUrl = (env: Bindings, requestUrl: string) => trimmed(env.PUBLIC_BASE_URL) ?? new URL(requestUrl).origin;

/**
 * The origin of links in mail sent outside a request (sweeps, queue consumers): the one the
 * launching request kept (its `publicBaseUrl`), else `PUBLIC_BASE_URL`. Null when neither is
 * known: such mail waits or fails rather than carry links to a host nobody configured.
 */
export const keptLinkOrigin = (env: Bindings, kept: string | null | undefined) => trimmed(kept) ?? trimmed(env.PUBLIC_BASE_URL);
