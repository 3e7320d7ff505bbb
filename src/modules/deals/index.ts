export { dealOfContact, selectDeal } from './read';
export { changeDealStage } from './stage-changes';
export type { DealRow } from './schema';
export { DealErrors } from './errors';
