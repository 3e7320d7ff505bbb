import { defineErrors } from '../../platform/errors';

/** Deals: their rules, and the deal other records name. */
export const DealErrors = defineErrors('DealErrors', {
  notFound: { status: 404, message: 'Deal not found' },
  noContact: { status: 400, message: 'Provide contact_id, or a phone/email to identify the contact' },
  missingTitle: { status: 400, code: 'MISSING_TITLE', message: 'title is required when no product is attached' },
  stagePipelineMismatch: { status: 400, code: 'STAGE_PIPELINE_MISMATCH', message: 'The stage does not belong to the given pipeline' },
  noPipeline: { status: 400, code: 'NO_PIPELINE', message: 'The workspace has no pipeline' },
  pipelineHasNoStages: { status: 400, code: 'PIPELINE_HAS_NO_STAGES', message: 'The pipeline has no stages' },
  invalidOwner: { status: 400, code: 'INVALID_DEAL_OWNER', message: 'owner_user_id must be an active agent of this workspace' },
});
