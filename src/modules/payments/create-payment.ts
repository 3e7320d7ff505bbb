import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { uniqueOn } from '../../platform/d1/constraints';
import { runOperation } from '../../platform/d1/operation';
import type { RowGuard } from '../../platform/d1/row-guard';
import { planContactReference, referencedContactExists, type ContactReferencePlan } from '../contacts';
import { attachableProduct, productLookup, type ProductReference } from '../products';
import type { PaymentCreateInput } from './dto';
import { applyChanges, changesFrom, updateRacesLostOn } from './payment-changes';
import { paymentOf, paymentWithEntries, selectEntries, selectEntriesByReference, selectPayment, selectPaymentByReference } from './read';
import { recordPaymentStatements } from './record-payment';
import { payments } from './schema';
import { validateCreate, type CreatePlan } from './validate';
import { PaymentErrors } from './errors';

function productReference(input: PaymentCreateInput): ProductReference {
  if (input.product_id !== undefined) return { product_id: input.product_id.toLowerCase() };
  if (input.product_sku !== undefined) return { product_sku: input.product_sku };
  if (input.product_external_id !== undefined) return { product_external_id: input.product_external_id };
  return {};
}

/**
 * `POST /v1/payments`: one read batch (the `external_reference` match with its
 * entries, the product, the contact reference's reads) and one write batch
 * (the contact's own create or update first, then the payment, its entries,
 * the timeline row and the re-read). A parallel create of the same reference
 * fails the unique index and is retried as the update. A new payment without
 * a product is also sent along with the reads (see `recordAlongReads`): one
 * round trip.
 */
export function createPayment(ctx: ServiceContext, input: PaymentCreateInput) {
  const plan = validateCreate(ctx, input);
  const productRef = productReference(input);
  const namesProduct = Object.keys(productRef).length > 0;
  const contactRef = { contact_id: input.contact_id?.toLowerCase(), phone: input.phone, email: input.email, name: input.name };
  return runOperation(ctx, () => {
    const contactPlan = planContactReference(ctx, contactRef, { missing: PaymentErrors.noContact, source: 'api' });
    const along = namesProduct ? null : recordAlongReads(ctx, input, plan, contactPlan);
    return {
      along: along && {
        ...along,
        done: (read) => (read.created[0] ? { ...paymentOf({ payment: read.created, entries: read.createdEntries }), duplicate: false } : null),
      },
      // The reference's payment and the product are read only when the body names them.
      reads: {
        created: along && selectPayment(ctx.db, ctx.ws.id, along.id),
        createdEntries: along && selectEntries(ctx.db, ctx.ws.id, along.id),
        existing: input.external_reference !== undefined && selectPaymentByReference(ctx.db, ctx.ws.id, input.external_reference),
        existingEntries: input.external_reference !== undefined && selectEntriesByReference(ctx.db, ctx.ws.id, input.external_reference),
        product: namesProduct && productLookup(ctx, productRef),
        contact: contactPlan,
      },
      decide: async (read, batch) => {
        const [existing] = read.existing;
        const product = namesProduct ? attachableProduct(read.product[0], existing?.productId ?? null) : null;
        if (existing) {
          applyChanges(
            ctx,
            batch,
            existing,
            read.existingEntries,
            changesFrom(input, product ?? undefined, existing.type === 'recurring' ? plan.vat : undefined),
          );
          return batch.answerFrom(paymentWithEntries(ctx.db, ctx.ws.id, existing.id), (written) => ({ ...paymentOf(written), duplicate: true }));
        }
        const contact = await read.contact();
        const { statements, header } = recordPaymentStatements(ctx, { input, plan, product, contactId: contact.contact.id });
        batch.join(contact).write(...statements);
        return batch.answerFrom(paymentWithEntries(ctx.db, ctx.ws.id, header.id), (written) => ({ ...paymentOf(written), duplicate: false }));
      },
      lostRaceOn: [paymentReferenceKey, ...updateRacesLostOn],
    };
  });
}

/** A parallel write recorded a payment with the same `external_reference` first. */
export const paymentReferenceKey = uniqueOn(payments.workspaceId, payments.externalReference);

/**
 * A new payment's statements, put in the batch of the create's reads: the payment is written
 * only if, as the batch runs, its contact exists and no payment holds the `external_reference`;
 * its entries and timeline row only if it was. A phone/email reference sends the contact's
 * create along first (see `along`), itself guarded on the reference being free, so a contact is
 * created only with the payment. Otherwise the batch wrote nothing and its reads decide as
 * always (a held reference: the update). The last reads re-read the payment: a header means it was created.
 */
function recordAlongReads(ctx: ServiceContext, input: PaymentCreateInput, plan: CreatePlan, contactPlan: ContactReferencePlan) {
  const values = { newWs: ctx.ws.id, newReference: input.external_reference ?? null };
  const contact = contactPlan.along({ condition: referenceFree, values });
  if (!contact) return null;
  const guard: RowGuard = { condition: newPaymentCondition, values: { ...values, newContact: contact.id } };
  const { statements, header } = recordPaymentStatements(ctx, { input, plan, product: null, contactId: contact.id }, guard);
  return { id: header.id, statements: [...contact.statements, ...statements], events: contact.events };
}

const [newWs, newContact, newReference] = ['newWs', 'newContact', 'newReference'].map((name) => sql.placeholder(name));
const referenceFree = sql`NOT EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.workspaceId} = ${newWs} AND ${payments.externalReference} = ${newReference})`;
const newPaymentCondition = sql`${referencedContactExists(newWs, newContact)} AND ${referenceFree}`;
