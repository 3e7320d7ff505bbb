/**
 * The newest data migration this code needs on a shard (a test holds it equal to the last file
 * of migrations/data). Migration names start with a zero-padded number, so they compare as text.
 */
export const DATA_SCHEMA = '0037_automations';

/** Whether a shard whose newest applied migration is `recorded` lacks one this code needs (unknown: not behind). */
export const schemaBehind = (recorded: string | null | undefined): boolean => !!recorded && recorded < DATA_SCHEMA;
