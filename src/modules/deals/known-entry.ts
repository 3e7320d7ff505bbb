import { sql, type SQL } from 'drizzle-orm';
import { builtOnce } from '../../platform/built-once';
import { Lru } from '../../platform/lru';
import type { RowGuard } from '../../platform/row-guard';
import { referencedContactExists, type ContactIdSql } from '../contacts/resolve';
import { pipelines, stages } from '../pipelines/schema';
import type { StageTarget } from './moves';
import { deals } from './schema';

/**
 * Where a new deal given neither stage nor pipeline enters (the first stage of the default
 * pipeline, with both names), per workspace, as this instance last read it. A create relying on
 * it guards its insert on it still being so, so a stale entry costs a round trip, never a wrong deal.
 */
const entries = new Lru<StageTarget>(1000);

export const knownEntry = (workspaceId: string) => entries.get(workspaceId);
export const rememberEntry = (workspaceId: string, entry: StageTarget) => entries.set(workspaceId, entry);

const [ws, contact, reference, pipeline, pipelineName, stage, stageName] = [
  'newWs',
  'newContact',
  'newReference',
  'newPipeline',
  'newPipelineName',
  'newStage',
  'newStageName',
].map((name) => sql.placeholder(name));

/** What the reads of a create find, as one condition (the default pipeline and its first stage found as the read batch finds them), the contact aside. */
const entryCondition = sql`NOT EXISTS (SELECT 1 FROM ${deals} WHERE ${deals.workspaceId} = ${ws} AND ${deals.externalReference} = ${reference})
  AND (SELECT ${pipelines.id} FROM ${pipelines} WHERE ${pipelines.workspaceId} = ${ws} ORDER BY ${pipelines.isDefault} DESC, ${pipelines.position} LIMIT 1) = ${pipeline}
  AND EXISTS (SELECT 1 FROM ${pipelines} WHERE ${pipelines.id} = ${pipeline} AND ${pipelines.name} = ${pipelineName})
  AND (SELECT ${stages.id} FROM ${stages} WHERE ${stages.workspaceId} = ${ws} AND ${stages.pipelineId} = ${pipeline} ORDER BY ${stages.position} LIMIT 1) = ${stage}
  AND EXISTS (SELECT 1 FROM ${stages} WHERE ${stages.id} = ${stage} AND ${stages.name} = ${stageName})`;
const newDealCondition = sql`${referencedContactExists(ws, contact)} AND ${entryCondition}`;

const entryValues = (workspaceId: string, externalReference: string | null, entry: StageTarget) => ({
  newWs: workspaceId,
  newReference: externalReference,
  newPipeline: entry.pipelineId,
  newPipelineName: entry.pipelineName,
  newStage: entry.stageId,
  newStageName: entry.stageName,
});

/**
 * The guard of a deal created alongside its reads: the contact exists, no deal holds the
 * `external_reference`, and `entry` is still where a deal without a stage enters, names included.
 */
export const newDealGuard = (workspaceId: string, contactId: string, externalReference: string | null, entry: StageTarget): RowGuard => ({
  condition: newDealCondition,
  values: { ...entryValues(workspaceId, externalReference, entry), newContact: contactId },
});

const contactConditions = builtOnce((contact: SQL) => sql`${contact} IS NOT NULL AND ${entryCondition}`);

/** The same for a contact named by SQL as the batch runs (a phone/email's, see `ContactIdSql`): it names one. */
export function newDealGuardFor(workspaceId: string, contact: ContactIdSql, externalReference: string | null, entry: StageTarget): RowGuard {
  return { condition: contactConditions(contact.sql), values: { ...entryValues(workspaceId, externalReference, entry), ...contact.values } };
}

/** The same without the contact: for a new contact created along with the deal, so that it is created only if the deal will be. */
export const entryGuard = (workspaceId: string, externalReference: string | null, entry: StageTarget): RowGuard => ({
  condition: entryCondition,
  values: entryValues(workspaceId, externalReference, entry),
});
