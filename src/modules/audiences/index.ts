export { audienceContactRecords } from './contact-records';
export { Audience } from './dto';
export { audienceContactCondition, createAudience } from './service';
