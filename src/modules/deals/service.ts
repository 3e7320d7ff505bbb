import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { guardOf, uniqueOn } from '../../platform/d1/constraints';
import { runOperation, type WriteBatch } from '../../platform/d1/operation';
import { uuidv7 } from '../../platform/ids';
import { toCents } from '../../platform/money';
import { planContactReference, selectReferencedContact, activity, ContactErrors } from '../contacts';
import { selectEntryStages, selectPipelines, type PipelineRow, type StageRow, PipelineErrors } from '../pipelines';
import { productLookup, type ProductReference, type ProductRow, attachableProduct } from '../products';
import type { DealCreateInput, DealPatchInput } from './dto';
import { dealEventData } from './event-payload';
import { selectDealWithStage, selectOwner, type DealWithStage } from './lookups';
import { stageChangeStatements, type StageTarget } from './stage-changes';
import { openTopSlot } from './placement';
import { readDealWithContact, selectDeal, selectDealWithContact, serializeDealWithContact } from './read';
import { deals, type DealRow } from './schema';
import { preparedInsert } from '../../platform/d1/prepared';
import { SharedErrors } from '../../platform/shared-errors';
import { DealErrors } from './errors';

const dealInsert = preparedInsert(deals);

const normalizeNote = (note: string | null | undefined) => (note === undefined ? undefined : note?.trim() || null);
const normalizeDate = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : new Date(value).toISOString());

function productReference(input: DealCreateInput): ProductReference {
  if (input.product_id !== undefined) return { product_id: input.product_id.toLowerCase() };
  if (input.product_sku !== undefined) return { product_sku: input.product_sku };
  if (input.product_external_id !== undefined) return { product_external_id: input.product_external_id };
  return {};
}

/** Where a new deal enters: the given stage, else the first stage of the given (or default) pipeline. */
function entryStage(input: DealCreateInput, pipelineRows: PipelineRow[], stageRows: StageRow[]): StageTarget {
  const byId = (id: string) => pipelineRows.find((p) => p.id === id);
  const target = (stage: StageRow, pipeline: PipelineRow): StageTarget => ({
    stageId: stage.id,
    pipelineId: pipeline.id,
    stageName: stage.name,
    pipelineName: pipeline.name,
  });
  const givenPipeline = input.pipeline_id === undefined ? undefined : byId(input.pipeline_id.toLowerCase());
  if (input.pipeline_id !== undefined && !givenPipeline) throw PipelineErrors.pipelineNotFound();
  if (input.stage_id !== undefined) {
    const stage = stageRows.find((s) => s.id === input.stage_id!.toLowerCase());
    if (!stage) throw PipelineErrors.stageNotFound();
    if (givenPipeline && stage.pipelineId !== givenPipeline.id) {
      throw DealErrors.stagePipelineMismatch();
    }
    return target(stage, byId(stage.pipelineId)!);
  }
  const pipeline = givenPipeline ?? pipelineRows.find((p) => p.isDefault) ?? pipelineRows[0];
  if (!pipeline) throw DealErrors.noPipeline();
  const first = stageRows.find((s) => s.pipelineId === pipeline.id);
  if (!first) throw DealErrors.pipelineHasNoStages();
  return target(first, pipeline);
}

/**
 * `POST /v1/deals`: two round trips, whatever the contact reference. One read batch holds what
 * the rules need, the contact upsert's reads included; one write batch holds the deal's create
 * (or, on an `external_reference` match, its update and move) after the contact's own create or
 * update, so a rejected deal never leaves a contact behind. A batch that loses a race (the stage
 * the deal was read in, a parallel create of the same reference or contact) runs again from the reads.
 */
export function createDeal(ctx: ServiceContext, input: DealCreateInput) {
  const productRef = productReference(input);
  const givenStageId = input.stage_id?.toLowerCase();
  const givenPipelineId = input.pipeline_id?.toLowerCase();
  const contactRef = { contact_id: input.contact_id?.toLowerCase(), phone: input.phone, email: input.email, name: input.name };
  const cap = ctx.ws.caps.deals;
  return runOperation(ctx, {
    // The owner, the reference's deal and the product are read only when the body names them: a statement less is a statement less to send and run.
    reads: {
      pipelines: selectPipelines(ctx.db, ctx.ws.id),
      stages: selectEntryStages(ctx.db, ctx.ws.id, givenStageId, givenPipelineId),
      owner: !!input.owner_user_id && selectOwner(ctx, input.owner_user_id.toLowerCase()),
      existing: input.external_reference !== undefined && selectDealWithStage(ctx, 'externalReference', input.external_reference),
      product: Object.keys(productRef).length > 0 && productLookup(ctx, productRef),
      contact: planContactReference(ctx, contactRef, { missing: DealErrors.noContact, source: 'api' }),
    },
    decide: async (read, batch) => {
      const [existing] = read.existing;
      const product = Object.keys(productRef).length ? attachableProduct(read.product[0], existing?.deal.productId ?? null) : null;
      if (input.owner_user_id && !read.owner[0]) throw DealErrors.invalidOwner();
      if (existing) {
        const move =
          givenStageId !== undefined && givenStageId !== existing.deal.stageId ? stageTarget(givenStageId, read.pipelines, read.stages) : null;
        const contact = await read.contact();
        const dealId = updateByReference(ctx, batch.join(contact), { existing, input, product, contactId: contact.contact.id, move });
        return batch.answer(selectDealWithContact(ctx.db, ctx.ws.id, dealId), ([row]) => ({ ...serializeDealWithContact(row), duplicate: true }));
      }
      const entry = entryStage(input, read.pipelines, read.stages);
      const title = product ? product.name : input.title;
      if (!title) throw DealErrors.missingTitle();
      const contact = await read.contact();
      const dealId = newDeal(ctx, batch.join(contact), input, { product, contactId: contact.contact.id, entry, title });
      return batch.answer(selectDealWithContact(ctx.db, ctx.ws.id, dealId), ([row]) => ({ ...serializeDealWithContact(row), duplicate: false }));
    },
    lostRaceOn: [guardOf(deals.stageId), uniqueOn(deals.workspaceId, deals.externalReference)],
    refusedOn: [[guardOf(deals.workspaceId), () => SharedErrors.planLimitExceeded.deals({ cap })]],
  });
}

/** The stage a deal found by its reference moves to: it must be a stage of the workspace. */
function stageTarget(stageId: string, pipelineRows: PipelineRow[], stageRows: StageRow[]): StageTarget {
  const stage = stageRows.find((s) => s.id === stageId);
  if (!stage) throw PipelineErrors.stageNotFound();
  return {
    stageId: stage.id,
    pipelineId: stage.pipelineId,
    stageName: stage.name,
    pipelineName: pipelineRows.find((p) => p.id === stage.pipelineId)!.name,
  };
}

/**
 * A new deal's writes: the row (under a cap, only while the count is below it), its slot at the
 * top of its stage, the timeline row and `deal.created`. Answers the deal's id.
 */
function newDeal(
  ctx: ServiceContext,
  batch: WriteBatch,
  input: DealCreateInput,
  resolved: { product: ProductRow | null; contactId: string; entry: StageTarget; title: string },
): string {
  const { product, entry, title, contactId } = resolved;
  const now = nowIso();
  const deal: DealRow = {
    id: uuidv7(),
    workspaceId: ctx.ws.id,
    pipelineId: entry.pipelineId,
    stageId: entry.stageId,
    contactId,
    productId: product?.id ?? null,
    ownerUserId: input.owner_user_id?.toLowerCase() ?? null,
    title,
    amountCents: input.amount !== undefined ? toCents(input.amount) : (product?.priceCents ?? 0),
    currency: input.currency?.toUpperCase() ?? ctx.ws.currency,
    status: 'open',
    lostReason: null,
    expectedCloseAt: normalizeDate(input.expected_close_at) ?? null,
    closedAt: null,
    stageEnteredAt: now,
    position: 0,
    note: normalizeNote(input.note) ?? null,
    externalReference: input.external_reference ?? null,
    source: 'api',
    createdBy: null,
    createdAt: now,
    updatedAt: now,
  };
  const cap = ctx.ws.caps.deals;
  batch.write(
    cap === undefined
      ? dealInsert.in(ctx.db, deal)
      : ctx.db.insert(deals).values({
          ...deal,
          // Under a cap the insert itself checks the count, so parallel creates cannot overshoot it.
          workspaceId: sql`CASE WHEN (SELECT count(*) FROM deals WHERE workspace_id = ${ctx.ws.id}) < ${cap} THEN ${ctx.ws.id} ELSE NULL END`,
        }),
    openTopSlot(ctx.db, ctx.ws.id, entry.stageId, deal.id),
    activity(ctx, contactId, 'deal_created', 'api', { deal_id: deal.id, title, stage_id: entry.stageId, stage_name: entry.stageName }, now),
  );
  batch.emit('deal.created', dealEventData(deal, entry));
  return deal.id;
}

/** Rule 3 of `POST /v1/deals`: the fields it lists, contact re-applied, stage moved, status untouched. Answers the deal's id. */
function updateByReference(
  ctx: ServiceContext,
  batch: WriteBatch,
  change: { existing: DealWithStage; input: DealCreateInput; product: ProductRow | null; contactId: string; move: StageTarget | null },
): string {
  const { existing, input, product, move } = change;
  const deal = existing.deal;
  const now = nowIso();
  const set: Partial<DealRow> = { contactId: change.contactId, updatedAt: now };
  if (product) {
    set.productId = product.id;
    set.title = product.name;
  } else if (input.title && deal.productId === null) {
    set.title = input.title;
  }
  if (input.owner_user_id !== undefined) set.ownerUserId = input.owner_user_id?.toLowerCase() ?? null;
  Object.assign(set, valueChanges(input));
  batch.write(updateDeal(ctx, deal.id, set));
  if (move) batch.add(stageChangeStatements(ctx, { ...deal, ...set }, { stageId: deal.stageId, stageName: existing.stageName }, move, 0, now));
  return deal.id;
}

/** The fields a create by reference and a PATCH set alike: amount, currency, expected close and note, each when given. */
function valueChanges(input: Pick<DealCreateInput, 'amount' | 'currency' | 'expected_close_at' | 'note'>): Partial<DealRow> {
  const set: Partial<DealRow> = {};
  if (input.amount !== undefined) set.amountCents = toCents(input.amount);
  if (input.currency !== undefined) set.currency = input.currency.toUpperCase();
  if (input.expected_close_at !== undefined) set.expectedCloseAt = normalizeDate(input.expected_close_at);
  if (input.note !== undefined) set.note = normalizeNote(input.note);
  return set;
}

const updateDeal = (ctx: ServiceContext, id: string, set: Partial<DealRow>) =>
  ctx.db
    .update(deals)
    .set(set)
    .where(and(eq(deals.workspaceId, ctx.ws.id), eq(deals.id, id)));

/** `PATCH /v1/deals/{id}`: field updates only; no stage history, no deal event. */
export function patchDeal(ctx: ServiceContext, id: string, input: DealPatchInput) {
  const productId = input.product_id?.toLowerCase();
  const contactId = input.contact_id?.toLowerCase();
  const ownerId = input.owner_user_id?.toLowerCase();
  return runOperation(ctx, {
    reads: {
      deal: selectDeal(ctx.db, ctx.ws.id, id),
      product: !!productId && productLookup(ctx, { product_id: productId }),
      contact: !!contactId && selectReferencedContact(ctx, contactId),
      owner: !!ownerId && selectOwner(ctx, ownerId),
    },
    decide: (read, batch) => {
      const [deal] = read.deal;
      if (!deal) throw DealErrors.notFound();
      const set: Partial<DealRow> = { updatedAt: nowIso() };
      if (productId) {
        const product = attachableProduct(read.product[0], deal.productId);
        set.productId = product.id;
        if (product.id !== deal.productId) set.title = product.name;
      } else if (input.product_id === null) {
        set.productId = null;
      }
      const productAttached = (set.productId !== undefined ? set.productId : deal.productId) !== null;
      if (input.title !== undefined && !productAttached) set.title = input.title;
      if (contactId) {
        if (!read.contact[0]) throw ContactErrors.referenceNotFound();
        set.contactId = contactId;
      }
      if (input.owner_user_id !== undefined) {
        if (ownerId && !read.owner[0]) throw DealErrors.invalidOwner();
        set.ownerUserId = ownerId ?? null;
      }
      Object.assign(set, valueChanges(input));
      batch.write(updateDeal(ctx, id, set));
      return batch.answer(selectDealWithContact(ctx.db, ctx.ws.id, id), ([row]) => serializeDealWithContact(row));
    },
  });
}

export async function getDeal(ctx: ServiceContext, id: string) {
  const row = await readDealWithContact(ctx.db, ctx.ws.id, id);
  if (!row) throw DealErrors.notFound();
  return serializeDealWithContact(row);
}
