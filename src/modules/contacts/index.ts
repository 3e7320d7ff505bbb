export { createAttendanceEvent, setAttendance } from './attendance/service';
export {
  audienceFiltersInput,
  campaignAudienceFilters,
  checkContactFilter,
  type RecipientContact,
  selectRecipientContacts,
  VARIABLE_FIELDS,
  whatsappAudiencePage,
} from './audience';
export {
  compileContactFilter,
  contactMatches,
  contactsMatching,
  type ContactTarget,
  countEmailEligible,
  eligibleCountSql,
  emailEligibleContacts,
  type EligibleContact,
  emailEligibleIds,
  emailEligiblePage,
  withoutPlatformListed,
} from './consent/eligibility';
export { consentRow, emailDeliverabilityStatement, recordComplaint, setConsent } from './consent/service';
export {
  contactIdHoldingEmail,
  contactIdHoldingPhone,
  contactIdsAfter,
  contactsForScoring,
  engineScoresStatement,
  SCORED_FIELDS,
  storedScore,
} from './engine-score';
export { eraseContact } from './erase';
export { CONTACT_REFERENCE_ERRORS, ContactErrors } from './errors';
export { EXPORT_KIND_NAMES, exportContact } from './subject-copy';
export { installContactExtensions } from './extensions';
export { type ContactIdentity, contactIdentityColumns, contactIdentityJoin, serializeContactIdentity, titleOrContactSearch } from './identity-join';
export { contactCarriesTag } from './labels/links';
export { findMergeRequest, resolveMergeRequest } from './merge';
export { type ContactRow, contactCustomField, contactIdWithEmail, contactProjectionOf, contactProjectionOfPlaceholder, scoreBand } from './read';
export {
  type ContactReferencePlan,
  planContactReference,
  type PlannedContact,
  referencedContactExists,
  resolveContactReference,
  selectReferencedContact,
} from './resolve';
export { CHANNELS } from './schema';
export { applyParked, identityTaken, normalizeWrite, patchContact, planUpsert } from './service';
export { ContactWrite } from './fields';
export { activity, activityFrom, type TimelineSource } from './timeline';
