import { type SQL, sql } from 'drizzle-orm';
import type { Db, Statement } from '../../platform/d1/db';
import { preparedSql } from '../../platform/d1/prepared';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { guardable, type RowGuard } from '../../platform/d1/row-guard';
import { inJsonList } from '../../platform/d1/bound-parameters';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import { nowIso } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import type { RecordedSignal, SignalContact } from '../../platform/signals';
import { contactIdHoldingEmail, contactIdHoldingPhone } from '../contacts';
import type { Rule } from './rules';
import { contactScores, scoreSignals, scoringConfigs } from './schema';
import type { StoredSignal } from './engine';

/** The signal rows read per contact: its newest ones; older rows past this are pruned, so a contact's work stays bounded. */
export const SIGNALS_PER_CONTACT = 500;

export type ConfigRow = {
  enabled: number;
  rules: string;
  half_life_days: number | null;
  rescore_generation: number;
  rescore_after: string | null;
  rescore_touched_at: string | null;
  updated_at: string;
};
export type Config = {
  enabled: boolean;
  rules: Rule[];
  halfLifeDays: number | null;
  generation: number;
  after: string | null;
  updatedAt: string;
  /** The rules as stored: what a write computed from them is guarded on. */
  stored: string;
};

export const configOf = (row: ConfigRow | undefined): Config | null =>
  row
    ? {
        enabled: !!row.enabled,
        rules: JSON.parse(row.rules) as Rule[],
        halfLifeDays: row.half_life_days,
        generation: row.rescore_generation,
        after: row.rescore_after,
        updatedAt: row.updated_at,
        stored: row.rules,
      }
    : null;

const configSelect = preparedSql<ConfigRow, 'all'>('all', () => sql`SELECT * FROM ${scoringConfigs} WHERE workspace_id = ${sql.placeholder('ws')}`);
export const readConfig = (db: Db, workspaceId: string) => configSelect.in(db, { ws: workspaceId });

/**
 * A signal row for the change's batch, written only while the workspace scores contacts (its shard's copy of the
 * switch, read as the batch runs), `guard` holds and the contact exists (by address: a contact holds it): no extra
 * round trip, and nothing stored for a workspace that does not score.
 */
const signalInsert = (contact: SQL) =>
  guardable((condition) =>
    preparedSql(
      'run',
      () => sql`INSERT INTO ${scoreSignals} (id, workspace_id, contact_id, signal, occurred_at, pending)
        SELECT ${sql.placeholder('id')}, ${sql.placeholder('ws')}, ${contact}, ${sql.placeholder('signal')}, ${sql.placeholder('at')}, 1
        WHERE ${contact} IS NOT NULL AND EXISTS (SELECT 1 FROM ${scoringConfigs} WHERE workspace_id = ${sql.placeholder('ws')} AND enabled = 1) AND ${condition}`,
    ),
  );
const byId = signalInsert(sql`${sql.placeholder('contact')}`);
const byEmail = signalInsert(contactIdHoldingEmail);
const byPhone = signalInsert(contactIdHoldingPhone);

export const recordSignal = (db: Db, workspaceId: string, contact: SignalContact, signal: RecordedSignal, guard?: RowGuard): Statement => {
  const values = { id: uuidv7(), ws: workspaceId, signal, at: nowIso() };
  if (typeof contact === 'string') return byId.in(db, { ...values, contact }, guard);
  if ('email' in contact) return byEmail.in(db, { ...values, email: contact.email.trim().toLowerCase() }, guard);
  return byPhone.in(db, { ...values, phone: contact.phone }, guard);
};

/** Up to `limit` contacts of the workspace with signals no scoring pass has counted yet. */
export const pendingContacts = (db: Db, workspaceId: string, limit: number) =>
  rawAll<{ contact_id: string }>(
    db,
    sql`SELECT DISTINCT contact_id FROM ${scoreSignals} INDEXED BY score_signals_pending WHERE workspace_id = ${workspaceId} AND pending = 1 LIMIT ${limit}`,
  );

/** The newest signals of each contact among `ids` (at most `SIGNALS_PER_CONTACT` each). */
export const signalsOf = (db: Db, workspaceId: string, ids: readonly string[]) =>
  rawAll<StoredSignal & { contact_id: string; pending: number }>(
    db,
    sql`SELECT id, contact_id, signal, occurred_at, pending FROM (
      SELECT id, contact_id, signal, occurred_at, pending,
        row_number() OVER (PARTITION BY contact_id ORDER BY occurred_at DESC, id DESC) AS n
      FROM ${scoreSignals} WHERE workspace_id = ${workspaceId} AND ${inJsonList(sql`contact_id`, ids)}
    ) WHERE n <= ${SIGNALS_PER_CONTACT}`,
  );

/** The signals a pass counted are no longer pending; one recorded meanwhile stays pending for the next pass. */
export const settleSignals = (db: Db, workspaceId: string, signalIds: readonly string[]) =>
  rawRun(db, sql`UPDATE ${scoreSignals} SET pending = 0 WHERE workspace_id = ${workspaceId} AND ${inJsonList(sql`id`, signalIds)}`);

/** Prunes the contacts' spent signals and every row past their newest `SIGNALS_PER_CONTACT`. */
export const pruneSignals = (db: Db, workspaceId: string, contactIds: readonly string[], spent: readonly string[]) =>
  rawRun(
    db,
    sql`DELETE FROM ${scoreSignals} WHERE workspace_id = ${workspaceId} AND (${inJsonList(sql`id`, spent)} OR id IN (
      SELECT id FROM (
        SELECT id, row_number() OVER (PARTITION BY contact_id ORDER BY occurred_at DESC, id DESC) AS n
        FROM ${scoreSignals} WHERE workspace_id = ${workspaceId} AND ${inJsonList(sql`contact_id`, contactIds)}
      ) WHERE n > ${SIGNALS_PER_CONTACT}))`,
  );

/** When each contact was scored and when its decay next needs applying. */
export const scoredAt = (db: Db, workspaceId: string, scored: readonly { id: string; due: string | null }[], at: string) =>
  rawRun(
    db,
    sql`INSERT INTO ${contactScores} (workspace_id, contact_id, computed_at, decay_due_at)
      SELECT ${workspaceId}, json_extract(value, '$[0]'), ${at}, json_extract(value, '$[1]') FROM json_each(${JSON.stringify(scored.map((s) => [s.id, s.due]))}) WHERE true
      ON CONFLICT (workspace_id, contact_id) DO UPDATE SET computed_at = excluded.computed_at, decay_due_at = excluded.decay_due_at`,
  );

export const contactScoreRow = (db: Db, workspaceId: string, contactId: string) =>
  rawAll<{ computed_at: string }>(
    db,
    sql`SELECT computed_at FROM ${contactScores} WHERE workspace_id = ${workspaceId} AND contact_id = ${contactId}`,
  );

/** What the engine holds about contacts that no longer exist (deleted): nothing left to score. */
export const forgetContacts = (db: Db, workspaceId: string, contactIds: readonly string[]) => [
  rawRun(db, sql`DELETE FROM ${scoreSignals} WHERE workspace_id = ${workspaceId} AND ${inJsonList(sql`contact_id`, contactIds)}`),
  rawRun(db, sql`DELETE FROM ${contactScores} WHERE workspace_id = ${workspaceId} AND ${inJsonList(sql`contact_id`, contactIds)}`),
];

/**
 * A statement that fails its batch (on `rules`, NOT NULL) unless the workspace still scores with the rules and
 * half-life `config` was read with: scores computed from rules since replaced are never written.
 */
export const sameConfig = (db: Db, workspaceId: string, config: Config) =>
  rawRun(
    db,
    sql`UPDATE ${scoringConfigs} SET rules = CASE WHEN enabled = 1 AND rules = ${config.stored} AND half_life_days IS ${config.halfLifeDays} THEN rules ELSE NULL END
      WHERE workspace_id = ${workspaceId}`,
  );

/** Whether a batch failed because the configuration it was computed from changed meanwhile. */
export const configChanged = (err: unknown) => failedOn(err, guardOf(scoringConfigs.rules));
