import { eq } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { shardDb, shardNames } from '../../platform/d1/shards';
import { selectPaymentRequest, serializePaymentRequest } from './read';
import { paymentRequests, type PaymentRequestRow } from './schema';
import { PaymentRequestErrors } from './errors';

export async function findPaymentRequest(ctx: ServiceContext, id: string): Promise<PaymentRequestRow> {
  const [row] = await selectPaymentRequest(ctx.db, ctx.ws.id, id);
  if (!row) throw PaymentRequestErrors.notFound();
  return row;
}

export async function getPaymentRequest(ctx: ServiceContext, id: string) {
  return serializePaymentRequest(await findPaymentRequest(ctx, id));
}

/** The workspace of a payment request known only by id (operator route): every shard is asked at once; null when none holds it. */
export async function locatePaymentRequest(env: Bindings, id: string): Promise<string | null> {
  const found = await Promise.all(
    shardNames(env).map(async (shard) => {
      const [row] = await shardDb(env, shard)
        .select({ workspaceId: paymentRequests.workspaceId })
        .from(paymentRequests)
        .where(eq(paymentRequests.id, id))
        .limit(1);
      return row?.workspaceId ?? null;
    }),
  );
  return found.find((w) => w !== null) ?? null;
}
