import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { SharedErrors } from '../../platform/shared-errors';
import { createRouter, idParams } from '../../platform/validation';
import { Deal, DealCreate, DealCreated, DealList, DealListQuery, DealPatch, DealStageMove, DealStatusChange, DealWithContact } from './dto';
import { changeDealStatus, changeDealStage } from './stage-changes';
import { listDeals } from './list';
import { createDeal, getDeal, patchDeal } from './service';
import { CONTACT_REFERENCE_ERRORS, ContactErrors } from '../contacts';
import { DealErrors } from './errors';
import { ProductErrors } from '../products';
import { PipelineErrors } from '../pipelines';

export const dealRoutes = createRouter();
const tags = ['Deals'];

dealRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/deals',
    operationId: 'listDeals',
    tags,
    summary: 'List deals',
    description: 'Newest first, with the contact join. Dedicated params only; filters combine with AND.',
    security: bearer,
    request: { query: DealListQuery },
    responses: { 200: jsonContent(DealList, 'A page of deals') },
  }),
  async (c) => c.json(await listDeals(serviceContext(c), c.req.valid('query')), 200),
);

dealRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/deals/{id}',
    operationId: 'getDeal',
    tags,
    summary: 'Get a deal',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(DealWithContact, 'The deal with its contact') },
    errors: [DealErrors.notFound],
  }),
  async (c) => c.json(await getDeal(serviceContext(c), c.req.valid('param').id.toLowerCase()), 200),
);

dealRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/deals',
    operationId: 'createDeal',
    tags,
    summary: 'Create a deal (upsert by external_reference)',
    description:
      'Resolves the contact (contact_id wins; else phone/email upsert) and the product (`product_id`, `product_sku`, `product_external_id`, ' +
      'first given wins). On an `external_reference` match the deal is updated instead (`duplicate: true`).',
    security: bearer,
    request: {
      body: jsonBody(DealCreate, {
        title: 'Annual plan for Acme',
        email: 'buyer@acme.example',
        name: 'Bo Buyer',
        amount: 990,
        currency: 'EUR',
        external_reference: 'crm-7781',
      }),
    },
    responses: { 201: jsonContent(DealCreated, 'Created or matched deal') },
    errors: [
      DealErrors.noContact,
      DealErrors.missingTitle,
      DealErrors.stagePipelineMismatch,
      DealErrors.noPipeline,
      DealErrors.pipelineHasNoStages,
      DealErrors.invalidOwner,
      ProductErrors.invalidProduct.reference,
      ProductErrors.productInactive.reference,
      SharedErrors.planLimitExceeded.deals,
      ...CONTACT_REFERENCE_ERRORS,
      PipelineErrors.pipelineNotFound,
      PipelineErrors.stageNotFound,
      SharedErrors.concurrentChange,
    ],
  }),
  async (c) => c.json(await createDeal(serviceContext(c), c.req.valid('json')), 201),
);

dealRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/deals/{id}',
    operationId: 'updateDeal',
    tags,
    summary: 'Update a deal',
    description: 'Field updates only: no stage history, no deal event. Move with `/stage`, close with `/status`.',
    security: bearer,
    request: { params: idParams, body: jsonBody(DealPatch, { amount: 1200, expected_close_at: '2026-12-31', note: 'Budget approved' }) },
    responses: { 200: jsonContent(DealWithContact, 'The updated deal') },
    errors: [
      DealErrors.invalidOwner,
      ProductErrors.invalidProduct.reference,
      ProductErrors.productInactive.reference,
      DealErrors.notFound,
      ContactErrors.referenceNotFound,
    ],
  }),
  async (c) => c.json(await patchDeal(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 200),
);

dealRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/deals/{id}/stage',
    operationId: 'moveDealStage',
    tags,
    summary: 'Move a deal to a stage, or reorder it in its column',
    description: 'Any stage of the workspace; `pipeline_id` follows the stage. Answers the bare deal row.',
    security: bearer,
    request: { params: idParams, body: jsonBody(DealStageMove, { stage_id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c', index: 0 }) },
    responses: { 201: jsonContent(Deal, 'The deal row') },
    errors: [DealErrors.notFound, PipelineErrors.stageNotFound, SharedErrors.concurrentChange],
  }),
  async (c) => c.json(await changeDealStage(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 201),
);

dealRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/deals/{id}/status',
    operationId: 'setDealStatus',
    tags,
    summary: 'Set a deal open, won or lost',
    description: 'The current status returns the row unchanged. Answers the bare deal row.',
    security: bearer,
    request: { params: idParams, body: jsonBody(DealStatusChange, { status: 'lost', lost_reason: 'Chose a competitor' }) },
    responses: { 201: jsonContent(Deal, 'The deal row') },
    errors: [DealErrors.notFound, SharedErrors.concurrentChange],
  }),
  async (c) => c.json(await changeDealStatus(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 201),
);
