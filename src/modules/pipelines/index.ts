export { Pipeline } from './dto';
export {
  pipelineNameOf,
  type PipelineRow,
  selectEntryStages,
  selectPipelines,
  selectStage,
  stageNameOf,
  type StageRow,
  type StageWithPipeline,
} from './reads';
export { createPipeline } from './service';
export { PipelineErrors } from './errors';
