import { defineErrors } from '../../platform/errors';

/** Pipelines and their stages, as the deals that name them answer. */
export const PipelineErrors = defineErrors('PipelineErrors', {
  pipelineNotFound: { status: 404, message: 'Pipeline not found' },
  stageNotFound: { status: 404, message: 'Stage not found' },
});
