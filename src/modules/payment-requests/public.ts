import { z } from '@hono/zod-openapi';
import { Hono, type Context } from 'hono';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { ApiError } from '../../platform/errors';
import { PaymentRequestErrors } from './errors';
import { publishCommitted } from '../../platform/outbox';
import { signalsCommitted } from '../../platform/signals';
import {
  answer,
  frameworkError,
  htmlPage,
  pathParams,
  providerEventBody,
  PUBLIC_POST_LIMIT,
  publicEntry,
  publicRefusal,
  type PublicRegistry,
} from '../../platform/public-docs';
import { limitPublicPost } from '../../platform/public-limits';
import { isUuid } from '../../platform/validation';
import {
  isPaymentProviderName,
  paymentProvider,
  ProviderError,
  sandboxReceipt,
  WebhookRejected,
  type PaymentProviderName,
} from '../../providers/payments';
import { messagePage, PAGE_CSP, payerLocale, paymentPage } from './page';
import { selectByToken } from './read';
import type { PaymentRequestRow } from './schema';
import { tokenWorkspace } from './pay-link';
import { settlePaymentRequest } from './settle-payment-request';
import { expireIfDue, rememberSession } from './status-changes';
import { publicWorkspaceContext } from '../workspaces';

type PublicEnv = { Bindings: Bindings };

/** The hosted pay page and the payment providers' webhooks: public routes outside /v1 (no API key). */
export const paymentPublicRoutes = new Hono<PublicEnv>();

const publish = (c: Context<PublicEnv>, ctx: ServiceContext) => {
  if (ctx.events.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, ctx.db, ctx.events.committed));
  if (ctx.events.signalled.size) c.executionCtx.waitUntil(signalsCommitted(c.env, ctx.events.signalled));
};

function html(c: Context<PublicEnv>, body: string, status: 200 | 404 | 502 = 200) {
  c.header('Content-Security-Policy', PAGE_CSP);
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.html(body, status);
}

const notFoundPage = (c: Context<PublicEnv>) =>
  html(c, messagePage('Payment link not found', 'Check the link you were sent, or ask the sender for a new one.'), 404);

/** The link behind a token, with a service context on its workspace; null for anything that is not a live token. */
async function linkOf(c: Context<PublicEnv>): Promise<{ ctx: ServiceContext; row: PaymentRequestRow } | null> {
  const token = c.req.param('token') ?? '';
  const workspaceId = tokenWorkspace(token);
  const ctx = workspaceId ? await publicWorkspaceContext(c.env, workspaceId) : null;
  if (!ctx) return null;
  const [row] = await selectByToken(ctx.db, ctx.ws.id, token);
  return row ? { ctx, row } : null;
}

/** What the sandbox (and the operator route standing in for a payer) reports: the same confirmation a provider webhook yields. */
export const sandboxConfirmation = (row: PaymentRequestRow) => ({
  provider: row.provider as PaymentProviderName,
  sessionId: null,
  paymentRef: null,
  document: row.provider === 'sandbox' ? sandboxReceipt(row) : null,
});

paymentPublicRoutes.get('/pay/:token', async (c) => {
  const link = await linkOf(c);
  if (!link) return notFoundPage(c);
  const { ctx } = link;
  const row = await expireIfDue(ctx, link.row);
  publish(c, ctx);
  if (row.status === 'pending' && row.provider !== 'sandbox') {
    // A fresh checkout at the provider on every open; the link itself stays ours (lazy expiry works for every provider).
    try {
      const checkout = await paymentProvider(c.env, row.provider as PaymentProviderName).createCheckout({
        id: row.id,
        workspaceId: row.workspaceId,
        contactId: row.contactId,
        amountCents: row.amountCents,
        currency: row.currency,
        title: row.title,
        expiresAt: row.expiresAt,
        testMode: row.testMode,
        returnUrl: row.payUrl,
      });
      if (checkout.sessionId) await rememberSession(ctx, row, checkout.sessionId);
      if (checkout.redirectUrl) return c.redirect(checkout.redirectUrl, 303);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      console.error('checkout creation failed', row.provider, err.message);
      return html(c, messagePage('Payment temporarily unavailable', 'The payment provider could not be reached. Please try again in a moment.'), 502);
    }
  }
  const sandbox = row.provider === 'sandbox';
  return html(
    c,
    paymentPage(row, {
      payable: sandbox,
      sandbox,
      payee: ctx.ws.name,
      locale: payerLocale(c.req.header('accept-language')),
      timeZone: ctx.ws.timezone,
    }),
  );
});

/** The sandbox page's Pay button: the payer pays (a stale page of a cancelled link completes late; a link past its expiry does not). */
paymentPublicRoutes.post('/pay/:token', limitPublicPost('pay'), async (c) => {
  const link = await linkOf(c);
  if (!link) return notFoundPage(c);
  const { ctx } = link;
  const row = await expireIfDue(ctx, link.row);
  if (row.provider === 'sandbox' && (row.status === 'pending' || row.status === 'cancelled')) {
    await settlePaymentRequest(ctx, row.id, sandboxConfirmation(row));
  }
  publish(c, ctx);
  return c.redirect(new URL(c.req.url).pathname, 303);
});

/**
 * A provider's payment confirmation, verified its own way (Stripe:
 * `Stripe-Signature`). A bad or stale signature answers 400 and changes
 * nothing; events that confirm nothing, and confirmations of links this
 * service does not know or another provider issued, answer 200 so the
 * provider stops retrying.
 */
paymentPublicRoutes.post('/providers/payments/:provider', async (c) => {
  const name = c.req.param('provider');
  if (!isPaymentProviderName(name) || name === 'sandbox') throw PaymentRequestErrors.unknownProvider({ name: name.slice(0, 50) });
  const raw = await c.req.text();
  let confirmation: Awaited<ReturnType<ReturnType<typeof paymentProvider>['verifyWebhook']>>;
  try {
    confirmation = await paymentProvider(c.env, name).verifyWebhook(raw, c.req.raw.headers);
  } catch (err) {
    if (err instanceof WebhookRejected) throw PaymentRequestErrors.webhookRejected({ reason: err.message });
    throw err;
  }
  if (!confirmation || !isUuid(confirmation.workspaceId) || !isUuid(confirmation.paymentRequestId))
    return c.json({ received: true, payment_request_id: null, status: null });
  const ctx = await publicWorkspaceContext(c.env, confirmation.workspaceId);
  if (!ctx) return c.json({ received: true, payment_request_id: null, status: null });
  try {
    const { row } = await settlePaymentRequest(ctx, confirmation.paymentRequestId.toLowerCase(), confirmation);
    publish(c, ctx);
    return c.json({ received: true, payment_request_id: row.id, status: row.status });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return c.json({ received: true, payment_request_id: null, status: null });
    throw err;
  }
});

const tokenParam = pathParams({ token: 'The unguessable token of `pay_url`' });

/** Documents the public routes (hosted page, provider webhooks) in the OpenAPI document, as what they are. */
export function registerPaymentPublicDocs(registry: PublicRegistry) {
  const common = publicEntry;
  registry.registerPath({
    ...common,
    method: 'get',
    path: '/pay/{token}',
    operationId: 'getPaymentPage',
    summary: 'Hosted pay page (HTML, for the payer)',
    description:
      'Not an API route: the page `pay_url` opens. A pending link shows the payee (the workspace name), title, amount, ' +
      'currency and a Pay button (sandbox, marked with a "Test mode" badge) or redirects (303) to a fresh provider checkout (Stripe); ' +
      'dates are in the language of `Accept-Language` (else English) and the workspace time zone; ' +
      'a pending link past `expires_at` is expired right there (`payment_request.expired` fires once) and says so; ' +
      'paid and cancelled links show their state. Plain HTML, no JavaScript.',
    request: { params: tokenParam },
    responses: {
      200: htmlPage('The page'),
      303: answer('Redirect to the provider checkout'),
      404: htmlPage('Unknown token'),
      502: htmlPage('The provider could not start a checkout'),
    },
  } as never);
  registry.registerPath({
    ...common,
    method: 'post',
    path: '/pay/{token}',
    operationId: 'payPaymentPage',
    summary: "The sandbox page's Pay button (form post)",
    description:
      'Sandbox links: the payer pays, through the same path as a verified provider payment (a cancelled link completes late; a link past `expires_at` expires instead). Answers 303 back to the page.',
    request: { params: tokenParam },
    responses: { 303: answer('Back to the page, which shows the new state'), 404: htmlPage('Unknown token'), 429: publicRefusal(PUBLIC_POST_LIMIT) },
  } as never);
  registry.registerPath({
    ...common,
    method: 'post',
    path: '/providers/payments/{provider}',
    operationId: 'receivePaymentProviderWebhook',
    summary: 'Payment provider webhook (called by the provider)',
    description:
      'Not for API clients: `stripe` posts Checkout Session events here, ' +
      'verified from `Stripe-Signature` (HMAC-SHA256 of `t.payload` with `STRIPE_WEBHOOK_SECRET`, 5-minute tolerance). ' +
      '`checkout.session.completed` and `checkout.session.async_payment_succeeded` of a paid session pay the link (once, ' +
      'whatever the number of deliveries); other events, unknown links and links another provider issued answer 200 without effect.',
    request: {
      params: z.object({ provider: z.string().openapi({ param: { name: 'provider', in: 'path' }, example: 'stripe' }) }),
      headers: z.object({ 'stripe-signature': z.string().optional().openapi({ description: '`t=<unix>,v1=<hex>`' }) }),
      body: providerEventBody({ type: 'checkout.session.completed', data: { object: { object: 'checkout.session' } } }),
    },
    responses: {
      200: answer('Received', {
        content: {
          'application/json': {
            schema: z.object({ received: z.literal(true), payment_request_id: z.string().nullable(), status: z.string().nullable() }),
          },
        },
      }),
      400: frameworkError('Bad or stale signature: nothing changed'),
      404: frameworkError('Unknown provider'),
    },
  } as never);
}
