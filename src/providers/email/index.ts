import type { Bindings } from '../../env';
import { resendEmailProvider } from './resend';
import { sandboxOutbox } from '../sandbox-outbox';
import { sandboxEmailProvider } from './sandbox';
import type { EmailProvider } from './types';

const PROVIDERS: Record<string, () => EmailProvider> = {
  sandbox: () => sandboxEmailProvider(sandboxOutbox()),
  resend: () => resendEmailProvider(),
};

export const EMAIL_PROVIDER_NAMES = Object.keys(PROVIDERS);

/** The provider a name selects (`EMAIL_PROVIDER`, a sender profile's `provider`, a webhook path), or null. */
export function emailProviderNamed(name: string): EmailProvider | null {
  return Object.hasOwn(PROVIDERS, name) ? PROVIDERS[name]() : null;
}

/** The deployment's provider: `EMAIL_PROVIDER` (default `sandbox`). */
export function configuredEmailProvider(env: Bindings): EmailProvider {
  const name = env.EMAIL_PROVIDER || 'sandbox';
  const provider = emailProviderNamed(name);
  if (!provider) throw new Error(`Unknown EMAIL_PROVIDER "${name}": use one of ${EMAIL_PROVIDER_NAMES.join(', ')}`);
  return provider;
}

export * from './types';
