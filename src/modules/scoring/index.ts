export { putScoring, readScoring, type ScoringSettings, scoringSwitched } from './config';
export { HalfLifeInput, RulesInput } from './rules';
