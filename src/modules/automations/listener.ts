import { sql, type SQLWrapper } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { rawAll } from '../../platform/d1/raw-query';
import { ApiError } from '../../platform/errors';
import type { Envelope, EventListener, ListenerMessage } from '../../platform/outbox';
import type { QueueMessageBody } from '../../platform/manifest';
import { contactIdWithEmail } from '../contacts';
import { orderContactId } from '../orders';
import { workspaceContext } from '../workspaces';
import type { Definition } from './definition';
import { endEnrollment, enrollFromEvent, objectsOf, sameObjects } from './enrollments';
import { publishStepEvents } from './run-state';
import { resumeRun, type RunParams, startRuns, stopRuns } from './runs';

export const AUTOMATION_EVENT_KIND = 'automation-event';

/**
 * Whether the workspace has an automation that may use an event of `type`: one that starts on it, waits for
 * it or exits on it, active or paused (a paused automation's running enrollments still wait and exit).
 */
export const automationListener: EventListener = {
  kind: AUTOMATION_EVENT_KIND,
  interested: (workspaceId: SQLWrapper, type: SQLWrapper) =>
    sql`EXISTS (SELECT 1 FROM automation_event_types t JOIN automations a ON a.id = t.automation_id
      WHERE t.workspace_id = ${workspaceId} AND t.event_type = ${type} AND a.status IN ('active', 'paused'))`,
};

/** The contact an event concerns: named in its data, or (orders, emails) found through what it names. */
async function contactOf(ctx: ServiceContext, type: string, data: Record<string, unknown>): Promise<string | null> {
  if (typeof data.contact_id === 'string') return data.contact_id;
  if (type.startsWith('order.') && typeof data.order_id === 'string') {
    const [row] = await rawAll<{ id: string | null }>(ctx.db, sql`SELECT ${orderContactId(ctx.ws.id, data.order_id)} AS id`);
    return row?.id ?? null;
  }
  if (type.startsWith('email.') && typeof data.to === 'string') {
    const [row] = await rawAll<{ id: string | null }>(ctx.db, sql`SELECT ${contactIdWithEmail(ctx.ws.id, data.to)} AS id`);
    return row?.id ?? null;
  }
  return null;
}

type Running = { id: string; trigger_objects: string; waiting_step_id: string | null; waiting_event_type: string | null; exit_on: string };

/** How many people's events of one workspace one batch handles at once. */
const PEOPLE_AT_ONCE = 8;

/** A workspace's events by the person they concern, as their data names them (the contact, the order, the address). */
function byPerson(messages: Message<QueueMessageBody>[]): Message<QueueMessageBody>[][] {
  const lanes = new Map<string, Message<QueueMessageBody>[]>();
  for (const m of messages) {
    const { data } = (m.body as unknown as ListenerMessage).event;
    const key = String(data.contact_id ?? data.order_id ?? data.to ?? '');
    lanes.set(key, [...(lanes.get(key) ?? []), m]);
  }
  return [...lanes.values()];
}

/** Runs `work` over the lanes, at most `width` at a time. */
async function inLanes<T>(lanes: T[], width: number, work: (lane: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, lanes.length) }, async () => {
      while (next < lanes.length) await work(lanes[next++]);
    }),
  );
}

/**
 * A batch of committed events for the workspaces' automations (queue messages of one kind, taken together):
 * each workspace's events in the order delivered, then one `createBatch` for every run they started. An
 * event whose handling fails is retried alone; the others are acknowledged.
 */
export async function handleAutomationEvents(messages: Message<QueueMessageBody>[], env: Bindings): Promise<void> {
  const byWorkspace = new Map<string, Message<QueueMessageBody>[]>();
  for (const m of messages) {
    const ws = (m.body as unknown as ListenerMessage).workspace_id;
    byWorkspace.set(ws, [...(byWorkspace.get(ws) ?? []), m]);
  }
  const runs: RunParams[] = [];
  const handled: Message<QueueMessageBody>[] = [];
  await Promise.all(
    [...byWorkspace].map(async ([workspaceId, group]) => {
      let ctx: ServiceContext;
      try {
        ctx = await workspaceContext(env, workspaceId);
      } catch (err) {
        // The workspace is gone: its events have no automation left to go to.
        if (err instanceof ApiError && err.status === 404) for (const m of group) m.ack();
        else for (const m of group) m.retry();
        return;
      }
      // One person's events in the order delivered (an exit before a later enrollment); different people's side by side.
      await inLanes(byPerson(group), PEOPLE_AT_ONCE, async (events) => {
        for (const m of events) {
          try {
            runs.push(...(await reactTo(ctx, env, (m.body as unknown as ListenerMessage).event)));
            handled.push(m);
          } catch (err) {
            console.error('automation event failed', err);
            m.retry();
          }
        }
      });
      await publishStepEvents(env, ctx);
    }),
  );
  // A run not created here is started by the `automation-starts` sweep: the events are done either way.
  await startRuns(env, runs);
  for (const m of handled) m.ack();
}

/**
 * One committed event: exits first (an `exit_on` of the enrollment's automation ends it before any later
 * step), then the waits it ends, then the enrollments it starts (the runs to create are answered). Each part
 * is safe to repeat: an exit is a guarded end, a resumed wait takes one event, and an enrollment per
 * (automation, trigger event) is unique.
 */
async function reactTo(ctx: ServiceContext, env: Bindings, event: Envelope): Promise<RunParams[]> {
  const contactId = await contactOf(ctx, event.type, event.data);
  if (!contactId) return [];
  const objects = objectsOf(event.data);
  const [starting, running] = await ctx.db.batch([
    rawAll<{ id: string; definition: string }>(
      ctx.db,
      sql`SELECT id, definition FROM automations WHERE workspace_id = ${ctx.ws.id} AND trigger_event = ${event.type} AND status = 'active'`,
    ),
    rawAll<Running>(
      ctx.db,
      sql`SELECT e.id, e.trigger_objects, e.waiting_step_id, e.waiting_event_type, json_extract(v.definition, '$.exit_on') AS exit_on
        FROM automation_enrollments e JOIN automation_versions v ON v.automation_id = e.automation_id AND v.version = e.automation_version
        WHERE e.workspace_id = ${ctx.ws.id} AND e.contact_id = ${contactId} AND e.status = 'active'`,
    ),
  ]);
  const concerned = running.filter((e) => sameObjects(JSON.parse(e.trigger_objects), objects));
  const exiting = concerned.filter((e) => (JSON.parse(e.exit_on) as string[]).includes(event.type));
  const exited: string[] = [];
  for (const e of exiting) if (await endEnrollment(ctx, e.id, 'exited', event.type)) exited.push(e.id);
  await stopRuns(env, exited);
  const waiting = concerned.filter((e) => !exiting.includes(e) && e.waiting_event_type === event.type && e.waiting_step_id);
  await Promise.all(waiting.map((e) => resumeRun(env, e.id, e.waiting_step_id!, event.id)));
  return enrollFromEvent(
    ctx,
    event,
    contactId,
    starting.map((a) => ({ id: a.id, filter: (JSON.parse(a.definition) as Definition).trigger.filter })),
  );
}
