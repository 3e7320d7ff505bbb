import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso, optionalReads, retryOnConflict, runBatch, type Statement } from '../../platform/d1/db';
import { failedOn, guardOf, lostRaceOn, uniqueOn } from '../../platform/d1/constraints';
import { uuidv7 } from '../../platform/ids';
import type { OutboxEvent } from '../../platform/events';
import { toCents } from '../../platform/money';
import { identityTaken, planContactReference, selectReferencedContact, type PlannedContact, activity } from '../contacts';
import { selectEntryStages, selectPipelines, type PipelineRow, type StageRow } from '../pipelines';
import { productLookup, type ProductReference, type ProductRow, attachableProduct } from '../products';
import type { DealCreateInput, DealPatchInput } from './dto';
import { dealEventData } from './events';
import { selectDealWithStage, selectOwner } from './lookups';
import { moveStatements, type StageTarget } from './moves';
import { openTopSlot } from './placement';
import { readDealWithContact, selectDealWithContact, serializeDealWithContact, type DealWithContactRow } from './read';
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
  if (input.pipeline_id !== undefined && !givenPipeline) throw SharedErrors.pipelineNotFound();
  if (input.stage_id !== undefined) {
    const stage = stageRows.find((s) => s.id === input.stage_id!.toLowerCase());
    if (!stage) throw SharedErrors.stageNotFound();
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

const joinedRow = (results: unknown[]) => (results.at(-1) as DealWithContactRow[])[0];

/**
 * `POST /v1/deals`: two round trips, whatever the contact reference. One read
 * batch holds what the rules need, the contact upsert's reads included; one
 * write batch holds the deal's create (or, on an `external_reference` match,
 * its update and move) after the contact's own create or update, so a rejected
 * deal never leaves a contact behind. A batch that loses a race (the stage
 * the deal was read in, a parallel create of the same reference or contact)
 * is retried from the reads.
 */
export async function createDeal(ctx: ServiceContext, input: DealCreateInput) {
  const productRef = productReference(input);
  const givenStageId = input.stage_id?.toLowerCase();
  const givenPipelineId = input.pipeline_id?.toLowerCase();
  const contactRef = { contact_id: input.contact_id?.toLowerCase(), phone: input.phone, email: input.email, name: input.name };
  return retryOnConflict(async () => {
    const contactPlan = planContactReference(ctx, contactRef, { missing: DealErrors.noContact, source: 'api' });
    // The owner, the reference's deal and the product are read only when the body names them: a statement less is a statement less to send and run.
    const reads = optionalReads();
    const slots = {
      pipelines: reads.add(selectPipelines(ctx.db, ctx.ws.id)),
      stages: reads.add(selectEntryStages(ctx.db, ctx.ws.id, givenStageId, givenPipelineId)),
      owner: reads.add(!!input.owner_user_id && selectOwner(ctx, input.owner_user_id.toLowerCase())),
      existing: reads.add(input.external_reference !== undefined && selectDealWithStage(ctx, 'externalReference', input.external_reference)),
      product: reads.add(Object.keys(productRef).length > 0 && productLookup(ctx, productRef)),
    };
    const contactFrom = reads.addAll(contactPlan.reads);
    const results = await runBatch(ctx.db, reads.statements);
    const pipelineRows = reads.get<PipelineRow[]>(results, slots.pipelines, []);
    const stageRows = reads.get<StageRow[]>(results, slots.stages, []);
    const ownerRows = reads.get<unknown[]>(results, slots.owner, []);
    const productRows = reads.get<ProductRow[]>(results, slots.product, []);
    const resolveContact = () => contactPlan.resolve(results.slice(contactFrom));
    const existing = reads.get<{ deal: DealRow; stageName: string | null; pipelineName: string | null }[]>(results, slots.existing, [])[0];
    const product = Object.keys(productRef).length ? attachableProduct(productRows[0], existing?.deal.productId ?? null) : null;
    if (input.owner_user_id && !ownerRows[0]) throw DealErrors.invalidOwner();

    if (existing) {
      let move: StageTarget | null = null;
      if (givenStageId !== undefined && givenStageId !== existing.deal.stageId) {
        const stage = stageRows.find((s) => s.id === givenStageId);
        if (!stage) throw SharedErrors.stageNotFound();
        move = {
          stageId: stage.id,
          pipelineId: stage.pipelineId,
          stageName: stage.name,
          pipelineName: pipelineRows.find((p) => p.id === stage.pipelineId)!.name,
        };
      }
      const contact = await resolveContact();
      try {
        return await updateByReference(ctx, existing, input, product, contact, move);
      } catch (err) {
        throw createLostRace(err) ? err : contact.mapError(err);
      }
    }

    const entry = entryStage(input, pipelineRows, stageRows);
    const title = product ? product.name : input.title;
    if (!title) throw DealErrors.missingTitle();
    const contact = await resolveContact();
    try {
      return await insertDeal(ctx, input, { product, contact, entry, title });
    } catch (err) {
      throw createLostRace(err) ? err : contact.mapError(err);
    }
  }, createLostRace);
}

/** A create lost a race: the stage it read moved, or a parallel create took its reference or its contact's identity. */
const stageOrReferenceTaken = lostRaceOn(guardOf(deals.stageId), uniqueOn(deals.workspaceId, deals.externalReference));
const createLostRace = (err: unknown) => stageOrReferenceTaken(err) || identityTaken(err);

async function insertDeal(
  ctx: ServiceContext,
  input: DealCreateInput,
  resolved: { product: ProductRow | null; contact: PlannedContact; entry: StageTarget; title: string },
) {
  const { contact, writes: contactWrites, events: contactEvents } = resolved.contact;
  const cap = ctx.ws.caps.deals;
  const { statements, event } = newDealStatements(ctx, input, { ...resolved, contactId: contact.id });
  try {
    const results = await runBatch(ctx.db, [...contactWrites, ...statements]);
    ctx.events.committedAfter([...contactEvents, event]);
    return { ...serializeDealWithContact(joinedRow(results)), duplicate: false };
  } catch (err) {
    if (failedOn(err, guardOf(deals.workspaceId))) {
      throw DealErrors.limitReached({ cap });
    }
    throw err;
  }
}

/**
 * A new deal's statements: the row (under a cap, only while the count is below it), its slot at
 * the top of its stage, the timeline row, `deal.created` and the re-read.
 */
function newDealStatements(
  ctx: ServiceContext,
  input: DealCreateInput,
  resolved: { product: ProductRow | null; contactId: string; entry: StageTarget; title: string },
) {
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
  const { event, statement: outbox } = ctx.events.emit(ctx.db, ctx.ws.id, 'deal.created', dealEventData(deal, entry));
  const timeline = ['deal_created', 'api', { deal_id: deal.id, title, stage_id: entry.stageId, stage_name: entry.stageName }, now] as const;
  const statements: Statement[] = [
    cap === undefined
      ? dealInsert.in(ctx.db, deal)
      : ctx.db.insert(deals).values({
          ...deal,
          // Under a cap the insert itself checks the count, so parallel creates cannot overshoot it.
          workspaceId: sql`CASE WHEN (SELECT count(*) FROM deals WHERE workspace_id = ${ctx.ws.id}) < ${cap} THEN ${ctx.ws.id} ELSE NULL END`,
        }),
    openTopSlot(ctx.db, ctx.ws.id, entry.stageId, deal.id),
    activity(ctx, contactId, ...timeline),
    outbox,
    selectDealWithContact(ctx.db, ctx.ws.id, deal.id),
  ];
  return { statements, event };
}

/** Rule 3 of `POST /v1/deals`: the fields it lists, contact re-applied, stage moved, status untouched. */
async function updateByReference(
  ctx: ServiceContext,
  existing: { deal: DealRow; stageName: string | null; pipelineName: string | null },
  input: DealCreateInput,
  product: ProductRow | null,
  planned: PlannedContact,
  move: StageTarget | null,
) {
  const { contact } = planned;
  const deal = existing.deal;
  const now = nowIso();
  const set: Partial<DealRow> = { contactId: contact.id, updatedAt: now };
  if (product) {
    set.productId = product.id;
    set.title = product.name;
  } else if (input.title && deal.productId === null) {
    set.title = input.title;
  }
  if (input.amount !== undefined) set.amountCents = toCents(input.amount);
  if (input.currency !== undefined) set.currency = input.currency.toUpperCase();
  if (input.owner_user_id !== undefined) set.ownerUserId = input.owner_user_id?.toLowerCase() ?? null;
  if (input.expected_close_at !== undefined) set.expectedCloseAt = normalizeDate(input.expected_close_at);
  if (input.note !== undefined) set.note = normalizeNote(input.note);

  const statements: Statement[] = [
    ...planned.writes,
    ctx.db
      .update(deals)
      .set(set)
      .where(and(eq(deals.workspaceId, ctx.ws.id), eq(deals.id, deal.id))),
  ];
  const events: OutboxEvent[] = [...planned.events];
  if (move) {
    const moved = moveStatements(ctx, { ...deal, ...set }, { stageId: deal.stageId, stageName: existing.stageName }, move, 0, now);
    statements.push(...moved.statements);
    events.push(...moved.events);
  }
  statements.push(selectDealWithContact(ctx.db, ctx.ws.id, deal.id));
  const results = await runBatch(ctx.db, statements);
  ctx.events.committedAfter(events);
  return { ...serializeDealWithContact(joinedRow(results)), duplicate: true };
}

/** `PATCH /v1/deals/{id}`: field updates only; no stage history, no deal event. */
export async function patchDeal(ctx: ServiceContext, id: string, input: DealPatchInput) {
  const productId = input.product_id?.toLowerCase();
  const contactId = input.contact_id?.toLowerCase();
  const ownerId = input.owner_user_id?.toLowerCase();
  const [[deal], productRows, contactRows, ownerRows] = await ctx.db.batch([
    ctx.db
      .select()
      .from(deals)
      .where(and(eq(deals.workspaceId, ctx.ws.id), eq(deals.id, id)))
      .limit(1),
    productLookup(ctx, productId ? { product_id: productId } : {}),
    selectReferencedContact(ctx, contactId ?? ''),
    selectOwner(ctx, ownerId ?? ''),
  ]);
  if (!deal) throw SharedErrors.dealNotFound();
  const now = nowIso();
  const set: Partial<DealRow> = { updatedAt: now };
  if (productId) {
    const product = attachableProduct(productRows[0], deal.productId);
    set.productId = product.id;
    if (product.id !== deal.productId) set.title = product.name;
  } else if (input.product_id === null) {
    set.productId = null;
  }
  const productAttached = (set.productId !== undefined ? set.productId : deal.productId) !== null;
  if (input.title !== undefined && !productAttached) set.title = input.title;
  if (contactId) {
    if (!contactRows[0]) throw SharedErrors.contactNotFound();
    set.contactId = contactId;
  }
  if (input.owner_user_id !== undefined) {
    if (ownerId && !ownerRows[0]) throw DealErrors.invalidOwner();
    set.ownerUserId = ownerId ?? null;
  }
  if (input.amount !== undefined) set.amountCents = toCents(input.amount);
  if (input.currency !== undefined) set.currency = input.currency.toUpperCase();
  if (input.expected_close_at !== undefined) set.expectedCloseAt = normalizeDate(input.expected_close_at);
  if (input.note !== undefined) set.note = normalizeNote(input.note);

  const [, [row]] = await ctx.db.batch([
    ctx.db
      .update(deals)
      .set(set)
      .where(and(eq(deals.workspaceId, ctx.ws.id), eq(deals.id, id))),
    selectDealWithContact(ctx.db, ctx.ws.id, id),
  ]);
  return serializeDealWithContact(row);
}

export async function getDeal(ctx: ServiceContext, id: string) {
  const row = await readDealWithContact(ctx.db, ctx.ws.id, id);
  if (!row) throw SharedErrors.dealNotFound();
  return serializeDealWithContact(row);
}
