import { z } from '@hono/zod-openapi';
import { enumQuery, limitQuery, offsetQuery, uuidQuery } from '../../platform/list';
import { RE_ENROLLMENT, STEP_TYPES, WEEKDAYS } from './definition';
import { AUTOMATION_STATUSES, ENROLLMENT_STATUSES, STEP_RUN_STATUSES } from './schema';

const STEP_DESCRIPTION = [
  'One step. Every step has `id` (1-64 of `a-z0-9_-`, unique in the whole tree) and `type`; the other fields by type:',
  '`wait`: `duration` (ISO 8601, `PT1S`..`P365D`) or `until` (`trigger.<field>` of the trigger event\u2019s data, or `contact.custom_fields.<key>`) with an optional signed `offset` (`-PT24H`);',
  '`wait_for`: `event`, `timeout`; `branch`: `if` (`{contact: <filter>}` or `{received: "<wait_for step id>"}`), `then`, `else` (step lists);',
  '`send_email`: `subject`, `preheader?`, `content` (`{markdown}` or `{html}`), `sender_profile_id?`; `send_whatsapp`: `template_id`, `variables?`;',
  '`add_tag`, `remove_tag`: `tag`; `update_contact`: `fields` (contact PATCH fields); `add_note`: `body`; `move_deal`: `stage_id` (deal.* triggers);',
  '`webhook`: `endpoint_id`; `end`. A problem answers 400 `invalid_automation` naming the path (`steps[1].then[0].duration`).',
].join(' ');

const Step = z.record(z.string(), z.unknown()).openapi('AutomationStep', {
  description: STEP_DESCRIPTION,
  properties: { id: { type: 'string', pattern: '^[a-z0-9_-]{1,64}$' }, type: { type: 'string', enum: [...STEP_TYPES] } },
  required: ['id', 'type'],
  example: { id: 'thank_you', type: 'send_email', subject: 'Thank you, {{first_name}}', content: { markdown: 'Your order is on its way.' } },
});

const Trigger = z
  .object({
    event: z.string().openapi({ description: '`manual`, or an event type of the webhook catalogue that concerns a contact' }),
    filter: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .openapi('AutomationTrigger', {
    description: 'When contacts enroll: `filter` (the contact filter grammar) is tested against the contact when the event is handled.',
  });

const SendWindow = z
  .object({
    days: z.array(z.string()).openapi({ items: { type: 'string', enum: [...WEEKDAYS] }, description: 'The weekdays it opens on' }),
    start: z.string().openapi({ example: '09:00' }),
    end: z.string().openapi({ example: '18:00' }),
    timezone: z.string().optional().openapi({ description: 'IANA zone; default the workspace\u2019s' }),
  })
  .strict()
  .openapi('AutomationSendWindow', {
    description: 'A send step reached outside the window waits for its next opening. An `end` before `start` spans midnight.',
  });

const definitionFields = {
  trigger: Trigger,
  steps: z.array(Step).max(50),
  exit_on: z.array(z.string()).max(50).openapi({ description: 'Event types that end an enrollment `exited` before any later step' }),
  re_enrollment: z
    .enum(RE_ENROLLMENT)
    .openapi({ description: '`never` (once per contact ever), `after_end` (again once the previous ended), `always` (every trigger event)' }),
  send_window: SendWindow.nullable(),
};

const name = z.string().trim().min(1).max(200);

export const AutomationCreate = z
  .object({
    name,
    trigger: definitionFields.trigger,
    steps: definitionFields.steps,
    exit_on: definitionFields.exit_on.optional(),
    re_enrollment: definitionFields.re_enrollment.optional(),
    send_window: definitionFields.send_window.optional(),
  })
  .strict()
  .openapi('AutomationCreate');

export const AutomationPatch = z
  .object({
    name: name.optional(),
    trigger: definitionFields.trigger.optional(),
    steps: definitionFields.steps.optional(),
    exit_on: definitionFields.exit_on.optional(),
    re_enrollment: definitionFields.re_enrollment.optional(),
    send_window: definitionFields.send_window.optional(),
  })
  .strict()
  .openapi('AutomationPatch', {
    description: 'Any field but `status`. A change to `trigger`, `steps`, `exit_on`, `re_enrollment` or `send_window` raises `version` by 1.',
  });

const count = z.number().int();
export const AutomationStats = z
  .object({ enrolled: count, active: count, completed: count, exited: count, cancelled: count, failed: count })
  .openapi('AutomationStats');

export const Automation = z
  .object({
    id: z.string().uuid(),
    workspace_id: z.string().uuid(),
    name: z.string(),
    status: z.enum(AUTOMATION_STATUSES),
    version: z.number().int(),
    ...definitionFields,
    exit_on: z.array(z.string()),
    stats: AutomationStats,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Automation');

export const AutomationList = z.object({ data: z.array(Automation), total: count, limit: count, offset: count }).openapi('AutomationList');

export const AutomationListQuery = z.object({
  status: enumQuery(AUTOMATION_STATUSES, 'Only automations in this status; empty is absent'),
  limit: limitQuery({ limit: 25, cap: 100 }),
  offset: offsetQuery(),
});

export const EnrollmentCreate = z.object({ contact_id: z.string().uuid() }).strict().openapi('AutomationEnrollmentCreate');

export const StepRun = z
  .object({
    step_id: z.string(),
    type: z.enum(STEP_TYPES),
    status: z.enum(STEP_RUN_STATUSES),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    reason: z.string().nullable(),
    result: z.record(z.string(), z.unknown()).nullable(),
  })
  .openapi('AutomationStepRun');

export const Enrollment = z
  .object({
    id: z.string().uuid(),
    automation_id: z.string().uuid(),
    automation_version: z.number().int(),
    contact_id: z.string().uuid().nullable().openapi({ description: 'null once the contact was erased' }),
    status: z.enum(ENROLLMENT_STATUSES),
    trigger: z.object({ event_id: z.string(), event_type: z.string() }).nullable().openapi({ description: 'null for a manual enrollment' }),
    current_step_id: z.string().nullable(),
    enrolled_at: z.string(),
    ended_at: z.string().nullable(),
    exit_reason: z.string().nullable(),
  })
  .openapi('AutomationEnrollment');

export const EnrollmentWithSteps = Enrollment.extend({ steps: z.array(StepRun) }).openapi('AutomationEnrollmentWithSteps');

export const EnrollmentList = z.object({ data: z.array(Enrollment), total: count, limit: count, offset: count }).openapi('AutomationEnrollmentList');

export const EnrollmentListQuery = z.object({
  status: enumQuery(ENROLLMENT_STATUSES, 'Only enrollments in this status; empty is absent'),
  contact_id: uuidQuery('contact_id'),
  limit: limitQuery({ limit: 25, cap: 100 }),
  offset: offsetQuery(),
});
