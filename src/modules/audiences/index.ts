export { Audience } from './dto';
export { audienceContactCondition, createAudience } from './service';
