import { EVENT_CATALOG, type EventType, isEventType } from '../../platform/event-catalog';
import { isValidTimeZone } from '../../platform/timezones';
import { isUuid } from '../../platform/validation';
import { durationMs, waitMs } from './durations';
import { AutomationErrors } from './errors';

export const RE_ENROLLMENT = ['never', 'after_end', 'always'] as const;
export type ReEnrollment = (typeof RE_ENROLLMENT)[number];

export const STEP_TYPES = [
  'wait',
  'wait_for',
  'branch',
  'send_email',
  'send_whatsapp',
  'add_tag',
  'remove_tag',
  'update_contact',
  'add_note',
  'move_deal',
  'webhook',
  'end',
] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type SendWindow = { days: (typeof WEEKDAYS)[number][]; start: string; end: string; timezone?: string };

export type Trigger = { event: 'manual' | EventType; filter?: Record<string, unknown> };

/** A step as stored: its fields checked at write, so the engine reads them without checking again. */
export type Step = { id: string; type: StepType } & Record<string, unknown>;
export type BranchStep = Step & { type: 'branch'; if: { contact: Record<string, unknown> } | { received: string }; then: Step[]; else: Step[] };

/** What a version of an automation runs: the fields whose change raises the version. */
export type Definition = {
  trigger: Trigger;
  steps: Step[];
  exit_on: EventType[];
  re_enrollment: ReEnrollment;
  send_window: SendWindow | null;
};

/** Events of the automation family describe enrollments: reacting to them could loop, so nothing triggers on them. */
const REACTABLE = (Object.keys(EVENT_CATALOG) as EventType[]).filter(
  (t) => EVENT_CATALOG[t].subscription !== 'deprecated' && EVENT_CATALOG[t].family !== 'automation',
);
export const isReactableEvent = (value: unknown): value is EventType => typeof value === 'string' && isEventType(value) && REACTABLE.includes(value);

const PER_LEVEL_MAX = 50;
const DEPTH_MAX = 5;
const TOTAL_MAX = 200;
const STEP_ID = /^[a-z0-9_-]{1,64}$/;
const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;
const UNTIL = /^(trigger\.[A-Za-z0-9_.]{1,200}|contact\.custom_fields\.[A-Za-z0-9_]{1,64})$/;

/** The fields each step type takes besides `id` and `type`, and whether each is required. */
const FIELDS: Record<StepType, Record<string, boolean>> = {
  wait: { duration: false, until: false, offset: false },
  wait_for: { event: true, timeout: true },
  // biome-ignore lint/suspicious/noThenProperty: `then` is the contract's name for a branch's first arm; this table is never awaited.
  branch: { if: true, then: false, else: false },
  send_email: { subject: true, preheader: false, content: true, sender_profile_id: false },
  send_whatsapp: { template_id: true, variables: false },
  add_tag: { tag: true },
  remove_tag: { tag: true },
  update_contact: { fields: true },
  add_note: { body: true },
  move_deal: { stage_id: true },
  webhook: { endpoint_id: true },
  end: {},
};

const fail = (path: string, problem: string): never => {
  throw AutomationErrors.invalidDefinition({ path, problem });
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the trigger's shape; its filter is compiled by the caller, which knows the contact grammar. */
export function checkTrigger(trigger: Record<string, unknown>): Trigger {
  const extra = Object.keys(trigger).find((k) => k !== 'event' && k !== 'filter');
  if (extra) fail(`trigger.${extra}`, 'is not a trigger field');
  const event = trigger.event;
  if (event !== 'manual' && !isReactableEvent(event))
    fail('trigger.event', `${JSON.stringify(event)} is not an event type an automation can start on`);
  if (trigger.filter !== undefined && !isObject(trigger.filter)) fail('trigger.filter', 'must be a contact filter object');
  return trigger as Trigger;
}

export function checkExitOn(exitOn: unknown[]): EventType[] {
  exitOn.forEach((t, i) => {
    if (!isReactableEvent(t)) fail(`exit_on[${i}]`, `${JSON.stringify(t)} is not an event type an enrollment can exit on`);
  });
  return [...new Set(exitOn as EventType[])];
}

export function checkSendWindow(window: Record<string, unknown> | null): SendWindow | null {
  if (window === null) return null;
  const extra = Object.keys(window).find((k) => !['days', 'start', 'end', 'timezone'].includes(k));
  if (extra) fail(`send_window.${extra}`, 'is not a send window field');
  const { days, start, end, timezone } = window;
  if (!Array.isArray(days) || days.length === 0 || days.some((d) => !WEEKDAYS.includes(d as never)))
    fail('send_window.days', `must be a non-empty list of ${WEEKDAYS.join(', ')}`);
  if (typeof start !== 'string' || !CLOCK.test(start)) fail('send_window.start', 'must be a time HH:MM');
  if (typeof end !== 'string' || !CLOCK.test(end)) fail('send_window.end', 'must be a time HH:MM');
  if (start === end) fail('send_window.end', 'must differ from start');
  if (timezone !== undefined && !isValidTimeZone(timezone)) fail('send_window.timezone', 'must be an IANA time zone');
  return {
    days: [...new Set(days as SendWindow['days'])],
    start: start as string,
    end: end as string,
    ...(timezone ? { timezone: timezone as string } : {}),
  };
}

/** What the shape check leaves for the caller: the step fields that need the workspace's data or another module's rules. */
export type StepCheck = { path: string; step: Step };

/**
 * Checks the step tree's shape (limits, ids, fields per type, durations, event types) and returns every step
 * with its path, in tree order, for the checks that need the workspace (references, filters, content).
 */
export function checkSteps(steps: unknown[], trigger: Trigger): StepCheck[] {
  const all: StepCheck[] = [];
  const ids = new Set<string>();
  const walk = (level: unknown[], path: string, depth: number) => {
    if (depth > DEPTH_MAX) fail(path, `steps nest at most ${DEPTH_MAX} levels deep`);
    if (level.length > PER_LEVEL_MAX) fail(path, `at most ${PER_LEVEL_MAX} steps per level`);
    level.forEach((raw, i) => {
      const at = `${path}[${i}]`;
      if (!isObject(raw)) return fail(at, 'must be a step object');
      const { id, type } = raw;
      if (typeof id !== 'string' || !STEP_ID.test(id)) fail(`${at}.id`, 'must be 1 to 64 of a-z, 0-9, _ and -');
      if (ids.has(id as string)) fail(`${at}.id`, `"${id}" is used by another step`);
      ids.add(id as string);
      if (!STEP_TYPES.includes(type as StepType)) fail(`${at}.type`, `must be one of ${STEP_TYPES.join(', ')}`);
      const fields = FIELDS[type as StepType];
      for (const key of Object.keys(raw))
        if (key !== 'id' && key !== 'type' && !(key in fields)) fail(`${at}.${key}`, `is not a field of a ${type} step`);
      for (const [key, required] of Object.entries(fields)) if (required && raw[key] === undefined) fail(`${at}.${key}`, 'is required');
      const step = raw as Step;
      all.push({ path: at, step });
      if (all.length > TOTAL_MAX) fail(at, `at most ${TOTAL_MAX} steps in all`);
      checkStepFields(step, at, trigger);
      if (type === 'branch') {
        for (const arm of ['then', 'else'] as const) {
          const list = step[arm] ?? [];
          if (!Array.isArray(list)) fail(`${at}.${arm}`, 'must be a list of steps');
          step[arm] = list;
          walk(list as unknown[], `${at}.${arm}`, depth + 1);
        }
      }
    });
  };
  walk(steps, 'steps', 1);
  // A `received` branch reads a wait_for step's outcome: that step must exist.
  for (const { path, step } of all) {
    const received =
      step.type === 'branch' && (step as BranchStep).if && 'received' in (step as BranchStep).if
        ? ((step as BranchStep).if as { received: string }).received
        : null;
    if (received !== null && !all.some((s) => s.step.id === received && s.step.type === 'wait_for'))
      fail(`${path}.if.received`, `"${received}" is not the id of a wait_for step`);
  }
  return all;
}

const text = (value: unknown, path: string, max: number) => {
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > max) fail(path, `must be a string of 1 to ${max} characters`);
};

function checkStepFields(step: Step, at: string, trigger: Trigger): void {
  switch (step.type) {
    case 'wait': {
      const hasDuration = step.duration !== undefined;
      if (hasDuration === (step.until !== undefined)) fail(at, 'a wait takes exactly one of duration and until');
      if (hasDuration && waitMs(step.duration) === null) fail(`${at}.duration`, 'must be an ISO 8601 duration from PT1S to P365D');
      if (hasDuration && step.offset !== undefined) fail(`${at}.offset`, 'applies to until only');
      if (!hasDuration && (typeof step.until !== 'string' || !UNTIL.test(step.until)))
        fail(`${at}.until`, 'must be "trigger.<field>" or "contact.custom_fields.<key>"');
      if (step.offset !== undefined && (durationMs(step.offset) === null || Math.abs(durationMs(step.offset)!) > 365 * 86_400_000))
        fail(`${at}.offset`, 'must be a signed ISO 8601 duration of at most P365D');
      return;
    }
    case 'wait_for':
      if (!isReactableEvent(step.event)) fail(`${at}.event`, `${JSON.stringify(step.event)} is not an event type a step can wait for`);
      if (waitMs(step.timeout) === null) fail(`${at}.timeout`, 'must be an ISO 8601 duration from PT1S to P365D');
      return;
    case 'branch': {
      const cond = step.if;
      const ok = isObject(cond) && Object.keys(cond).length === 1 && (isObject(cond.contact) || typeof cond.received === 'string');
      if (!ok) fail(`${at}.if`, 'must be {contact: <filter>} or {received: "<wait_for step id>"}');
      return;
    }
    case 'send_email':
      text(step.subject, `${at}.subject`, 400);
      if (step.preheader !== undefined) text(step.preheader, `${at}.preheader`, 400);
      if (step.sender_profile_id !== undefined && !isUuid(step.sender_profile_id)) fail(`${at}.sender_profile_id`, 'must be a UUID');
      return;
    case 'send_whatsapp':
      if (!isUuid(step.template_id)) fail(`${at}.template_id`, 'must be a UUID');
      if (step.variables !== undefined && !isObject(step.variables)) fail(`${at}.variables`, 'must be an object');
      return;
    case 'add_tag':
    case 'remove_tag':
      text(step.tag, `${at}.tag`, 100);
      return;
    case 'update_contact':
      if (!isObject(step.fields) || Object.keys(step.fields).length === 0) fail(`${at}.fields`, 'must be an object of contact fields');
      return;
    case 'add_note':
      text(step.body, `${at}.body`, 5000);
      return;
    case 'move_deal':
      if (!trigger.event.startsWith('deal.')) fail(at, 'move_deal needs a deal.* trigger: it moves the trigger\u2019s deal');
      if (!isUuid(step.stage_id)) fail(`${at}.stage_id`, 'must be a UUID');
      return;
    case 'webhook':
      if (!isUuid(step.endpoint_id)) fail(`${at}.endpoint_id`, 'must be a UUID');
      return;
    case 'end':
      return;
  }
}

/** Every event type a definition reacts to: its trigger, its waits and its exits. */
export function eventTypesOf(definition: Definition): string[] {
  const types = new Set<string>(definition.exit_on);
  if (definition.trigger.event !== 'manual') types.add(definition.trigger.event);
  const walk = (steps: Step[]) => {
    for (const s of steps) {
      if (s.type === 'wait_for') types.add(s.event as string);
      if (s.type === 'branch') {
        walk((s as BranchStep).then);
        walk((s as BranchStep).else);
      }
    }
  };
  walk(definition.steps);
  return [...types];
}
