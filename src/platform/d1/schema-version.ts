import { SharedErrors } from '../shared-errors';

/**
 * The newest data migration this code needs on a shard (a test holds it equal to the last file
 * of migrations/data). Migration names start with a zero-padded number, so they compare as text.
 */
export const DATA_SCHEMA = '0028_request_log_request_id';

/** Whether a shard whose newest applied migration is `recorded` lacks one this code needs (unknown: not behind). */
export const schemaBehind = (recorded: string | null | undefined): boolean => !!recorded && recorded < DATA_SCHEMA;

/**
 * A write to a shard still on an older schema would fail on whatever it lacks, half-way through
 * a route's work; it is refused whole instead, until the shard's sweep finds it migrated
 * (`Retry-After: 60`: the next sweep re-reads the schema).
 */
export const schemaUpgrading = () => SharedErrors.schemaUpgrading();
