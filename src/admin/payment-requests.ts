import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { publishCommitted } from '../platform/outbox';
import { signalsCommitted } from '../platform/signals';
import {
  serializePaymentRequest,
  sandboxConfirmation,
  findPaymentRequest,
  locatePaymentRequest,
  settlePaymentRequest,
  PaymentRequest,
} from '../modules/payment-requests';
import { adminRoute } from './route';
import { idParam } from './validate';
import { workspaceContext } from '../modules/workspaces';
import { PaymentRequestErrors } from '../modules/payment-requests';

/** Operator routes of payment requests (docs/operator-api.md). */
export const paymentRequestAdmin = new Hono<AdminEnv>();

/**
 * The sandbox payer pays: the same path as a verified provider payment
 * (pending, cancelled and expired links become paid; a paid one answers as it
 * is, without a second event). 200 with the payment request.
 */
adminRoute(
  paymentRequestAdmin,
  {
    method: 'post',
    path: '/payment-requests/{id}/complete',
    operationId: 'completePaymentRequest',
    tag: 'Sandbox and sweeps',
    summary: 'The sandbox payer pays a link',
    description: 'The same path as a verified provider payment: a pending, cancelled or expired link becomes paid; a paid one answers as it is.',
    params: { id: 'The payment request id' },
    responses: { 200: { description: 'The payment request', schema: PaymentRequest }, 404: { description: '`Payment request not found`' } },
  },
  async (c, read) => {
    const id = idParam(c, 'id');
    await read();
    const workspaceId = await locatePaymentRequest(c.env, id);
    if (!workspaceId) throw PaymentRequestErrors.notFound();
    const ctx = await workspaceContext(c.env, workspaceId);
    const { row } = await settlePaymentRequest(ctx, id, sandboxConfirmation(await findPaymentRequest(ctx, id)));
    if (ctx.events.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, ctx.db, ctx.events.committed));
    if (ctx.events.signalled.size) c.executionCtx.waitUntil(signalsCommitted(c.env, ctx.events.signalled));
    return c.json(serializePaymentRequest(row));
  },
);
