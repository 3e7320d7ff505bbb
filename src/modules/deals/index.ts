export { dealOfContact, selectDeal } from './read';
export type { DealRow } from './schema';
export { DealErrors } from './errors';
