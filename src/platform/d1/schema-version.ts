import { ApiError, httpError } from '../errors';

/**
 * The newest data migration this code needs on a shard (a test holds it equal to the last file
 * of migrations/data). Migration names start with a zero-padded number, so they compare as text.
 */
export const DATA_SCHEMA = '0029_contacts_named_unique';

/** Whether a shard whose newest applied migration is `recorded` lacks one this code needs (unknown: not behind). */
export const schemaBehind = (recorded: string | null | undefined): boolean => !!recorded && recorded < DATA_SCHEMA;

/** How long a client waits before retrying a write refused while its shard is upgraded: the next sweep re-reads the schema. */
const RETRY_AFTER_SECONDS = 60;

/**
 * A write to a shard still on an older schema would fail on whatever it lacks, half-way through
 * a route's work; it is refused whole instead, until the shard's sweep finds it migrated.
 */
export const schemaUpgrading = (): ApiError => {
  const { body } = httpError(503, "This workspace's database is being upgraded: retry in a minute", { error_code: 'SCHEMA_UPGRADING' });
  return new ApiError(503, body, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
};
