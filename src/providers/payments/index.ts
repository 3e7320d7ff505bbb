import type { Bindings } from '../../env';
import { sandboxProvider } from './sandbox';
import { StripeProvider } from './stripe';
import { PAYMENT_PROVIDERS, type PaymentProvider, type PaymentProviderName } from './types';

export * from './types';
export { sandboxReceipt } from './sandbox';

export const isPaymentProviderName = (v: string): v is PaymentProviderName => (PAYMENT_PROVIDERS as readonly string[]).includes(v);

/** The configured provider's name (`PAYMENT_PROVIDER`, `sandbox` by default; an unknown name falls back to the sandbox). */
export function configuredProvider(env: Bindings): PaymentProviderName {
  const name = (env.PAYMENT_PROVIDER ?? '').trim().toLowerCase();
  return isPaymentProviderName(name) ? name : 'sandbox';
}

/** The adapter of a provider by name, with its secrets from the environment. */
export function paymentProvider(env: Bindings, name: PaymentProviderName = configuredProvider(env)): PaymentProvider {
  return name === 'stripe' ? new StripeProvider(env.STRIPE_SECRET_KEY, env.STRIPE_WEBHOOK_SECRET) : sandboxProvider;
}
