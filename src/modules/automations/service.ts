import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { CONFLICT_ATTEMPTS, nowIso, type Statement } from '../../platform/d1/db';
import { SharedErrors } from '../../platform/shared-errors';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { uuidv7 } from '../../platform/ids';
import { parsePaging } from '../../platform/list';
import type { Bindings } from '../../env';
import { type Definition, eventTypesOf } from './definition';
import { AutomationErrors } from './errors';
import { AUTOMATION_STATUSES, type AutomationStatus } from './schema';
import { checkedDefinition, type DefinitionInput } from './validate';
import { stopRuns } from './runs';

type StoredAutomation = {
  id: string;
  workspace_id: string;
  name: string;
  status: AutomationStatus;
  version: number;
  definition: string;
  created_at: string;
  updated_at: string;
  stats: string;
};

/** Counts of the automation's enrollments by status, computed with the row (one statement). */
const STATS = sql.raw(`(SELECT json_object('enrolled', count(*), 'active', coalesce(sum(e.status = 'active'), 0),
  'completed', coalesce(sum(e.status = 'completed'), 0), 'exited', coalesce(sum(e.status = 'exited'), 0),
  'cancelled', coalesce(sum(e.status = 'cancelled'), 0), 'failed', coalesce(sum(e.status = 'failed'), 0))
  FROM automation_enrollments e WHERE e.automation_id = a.id) AS stats`);

const COLUMNS = sql.raw('a.id, a.workspace_id, a.name, a.status, a.version, a.definition, a.created_at, a.updated_at');

export function serializeAutomation(row: StoredAutomation) {
  const definition = JSON.parse(row.definition) as Definition;
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    status: row.status,
    version: row.version,
    trigger: definition.trigger,
    steps: definition.steps,
    exit_on: definition.exit_on,
    re_enrollment: definition.re_enrollment,
    send_window: definition.send_window,
    stats: JSON.parse(row.stats),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const selectOne = (ctx: ServiceContext, id: string) =>
  rawAll<StoredAutomation>(ctx.db, sql`SELECT ${COLUMNS}, ${STATS} FROM automations a WHERE a.workspace_id = ${ctx.ws.id} AND a.id = ${id}`);

/** The automation's event types, added to those it had (an earlier version's running enrollments still hear theirs). */
const eventTypeRows = (ctx: ServiceContext, id: string, types: string[]) =>
  rawRun(
    ctx.db,
    sql`INSERT INTO automation_event_types (workspace_id, event_type, automation_id)
      SELECT ${ctx.ws.id}, value, ${id} FROM json_each(${JSON.stringify(types)}) WHERE 1 ON CONFLICT DO NOTHING`,
  );

/** The version row an enrollment of `version` reads its steps from, written with the automation's row. */
const versionInsert = (ctx: ServiceContext, id: string, version: number, definition: Definition, now: string) =>
  rawRun(
    ctx.db,
    sql`INSERT INTO automation_versions (automation_id, version, workspace_id, definition, created_at)
      VALUES (${id}, ${version}, ${ctx.ws.id}, ${JSON.stringify(definition)}, ${now}) ON CONFLICT DO NOTHING`,
  );

export async function createAutomation(ctx: ServiceContext, input: DefinitionInput & { name: string }) {
  const definition = await checkedDefinition(ctx, input);
  const id = uuidv7();
  const now = nowIso();
  const [, , , rows] = await ctx.db.batch([
    rawRun(
      ctx.db,
      sql`INSERT INTO automations (id, workspace_id, name, status, version, definition, trigger_event, created_at, updated_at)
        VALUES (${id}, ${ctx.ws.id}, ${input.name}, 'draft', 1, ${JSON.stringify(definition)}, ${definition.trigger.event}, ${now}, ${now})`,
    ),
    versionInsert(ctx, id, 1, definition, now),
    eventTypeRows(ctx, id, eventTypesOf(definition)),
    selectOne(ctx, id),
  ]);
  return serializeAutomation(rows[0]);
}

export async function getAutomation(ctx: ServiceContext, id: string) {
  const [row] = await selectOne(ctx, id);
  if (!row) throw AutomationErrors.notFound();
  return serializeAutomation(row);
}

export async function listAutomations(ctx: ServiceContext, query: { status?: string; limit?: string; offset?: string }) {
  const paging = parsePaging(query, { limit: 25, cap: 100 });
  const status = query.status || undefined;
  if (status !== undefined && !AUTOMATION_STATUSES.includes(status as AutomationStatus))
    throw AutomationErrors.invalidListFilter({ name: 'status', values: AUTOMATION_STATUSES.join(', ') });
  const where = status ? sql`a.workspace_id = ${ctx.ws.id} AND a.status = ${status}` : sql`a.workspace_id = ${ctx.ws.id}`;
  const [[{ total }], rows] = await ctx.db.batch([
    rawAll<{ total: number }>(ctx.db, sql`SELECT count(*) AS total FROM automations a WHERE ${where}`),
    rawAll<StoredAutomation>(
      ctx.db,
      sql`SELECT ${COLUMNS}, ${STATS} FROM automations a WHERE ${where} ORDER BY a.created_at DESC, a.id DESC LIMIT ${paging.limit} OFFSET ${paging.offset}`,
    ),
  ]);
  return { data: rows.map(serializeAutomation), total, limit: paging.limit, offset: paging.offset };
}

const DEFINITION_FIELDS = ['trigger', 'steps', 'exit_on', 're_enrollment', 'send_window'] as const;

/**
 * A change to what runs raises the version and stores it beside the earlier ones (running enrollments keep
 * theirs); a rename does not. The update is guarded by the version it was decided on, so two racing
 * changes never both build on the same version: the later one decides again on the newer row.
 */
export async function patchAutomation(ctx: ServiceContext, id: string, input: Partial<DefinitionInput> & { name?: string }) {
  for (let attempt = 0; attempt < CONFLICT_ATTEMPTS; attempt++) {
    const [row] = await selectOne(ctx, id);
    if (!row) throw AutomationErrors.notFound();
    const current = JSON.parse(row.definition) as Definition;
    const touched = DEFINITION_FIELDS.some((f) => input[f] !== undefined);
    const next = touched ? await checkedDefinition(ctx, { ...current, ...stripUndefined(input) } as DefinitionInput) : current;
    const changed = JSON.stringify(next) !== JSON.stringify(current);
    const version = changed ? row.version + 1 : row.version;
    const now = nowIso();
    const update = rawRun(
      ctx.db,
      sql`UPDATE automations SET name = ${input.name ?? row.name}, version = ${version}, definition = ${JSON.stringify(next)},
        trigger_event = ${next.trigger.event}, updated_at = ${now}
        WHERE workspace_id = ${ctx.ws.id} AND id = ${id} AND version = ${row.version}`,
    );
    // A rename writes the row alone; a new version also stores it and the event types it reacts to.
    const versioned = changed ? [versionInsert(ctx, id, version, next, now), eventTypeRows(ctx, id, eventTypesOf(next))] : [];
    const results = await ctx.db.batch([update, ...versioned, selectOne(ctx, id)] as [Statement, ...Statement[]]);
    const [written, read] = [results[0] as D1Result, results[results.length - 1] as StoredAutomation[]];
    if (written.meta.changes) return serializeAutomation(read[0]);
    if (!read[0]) throw AutomationErrors.notFound();
  }
  throw SharedErrors.concurrentChange();
}

const stripUndefined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** The statuses each action moves from, and the status it moves to; an automation already there is answered as it is. */
const TRANSITIONS = {
  activate: { from: ['draft', 'paused', 'active'], to: 'active', verb: 'activated' },
  pause: { from: ['active', 'paused'], to: 'paused', verb: 'paused' },
  archive: { from: ['draft', 'active', 'paused', 'archived'], to: 'archived', verb: 'archived' },
} as const;
export type Transition = keyof typeof TRANSITIONS;

/**
 * Moves the automation along its lifecycle in one guarded statement. Archiving also cancels its running
 * enrollments in the same batch (their instances are stopped after it, and would stop at their next step anyway).
 */
export async function transitionAutomation(ctx: ServiceContext, env: Bindings, id: string, action: Transition, linkOrigin: string) {
  const rule = TRANSITIONS[action];
  const now = nowIso();
  const from = JSON.stringify(rule.from);
  const [update, cancelled, rows] = await ctx.db.batch([
    rawRun(
      ctx.db,
      sql`UPDATE automations SET status = ${rule.to}, updated_at = ${now}, link_origin = ${action === 'activate' ? linkOrigin : sql`link_origin`},
          activated_at = ${action === 'activate' ? sql`CASE WHEN status = 'active' THEN activated_at ELSE ${now} END` : sql`activated_at`}
        WHERE workspace_id = ${ctx.ws.id} AND id = ${id} AND status IN (SELECT value FROM json_each(${from}))`,
    ),
    rawAll<{ id: string }>(
      ctx.db,
      action === 'archive'
        ? sql`UPDATE automation_enrollments SET status = 'cancelled', ended_at = ${now}, updated_at = ${now}, active_key = NULL,
            waiting_step_id = NULL, waiting_event_type = NULL, exit_reason = 'archived'
            WHERE workspace_id = ${ctx.ws.id} AND automation_id = ${id} AND status = 'active'
              AND EXISTS (SELECT 1 FROM automations WHERE id = ${id} AND status = 'archived') RETURNING id`
        : sql`SELECT NULL AS id WHERE 0`,
    ),
    selectOne(ctx, id),
  ]);
  const [row] = rows;
  if (!row) throw AutomationErrors.notFound();
  if (!update.meta.changes) throw AutomationErrors.invalidTransition({ status: row.status, action: rule.verb });
  if (cancelled.length)
    await stopRuns(
      env,
      cancelled.map((e) => e.id),
    );
  return serializeAutomation(row);
}
