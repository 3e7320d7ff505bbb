import { z } from '@hono/zod-openapi';
import { enumQuery, limitQuery, listQuery, offsetQuery, sortQuery, uuidQuery } from '../../platform/list';
import { uuid, uuidOut } from '../../platform/validation';
import { headerText } from '../emails';
import { MAX_POOL_HOSTS, MEETING_TYPE_SORTS } from './meeting-types';
import { BOOKING_STATUSES, SCHEDULING_KINDS, WEEKDAYS } from './schema';
import { isWallTime } from './slots';

export const BOOKING_SORTS = ['start_at', 'end_at', 'created_at', 'updated_at'] as const;

export const MeetingTypeListQuery = listQuery({
  sorts: MEETING_TYPE_SORTS,
  paging: { limit: 50, cap: 500 },
  search: 'Case-insensitive substring of the name, slug or description',
  filterExample: { is_active: true },
});

export const MeetingType = z
  .object({
    id: uuidOut(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    duration_minutes: z.number().int(),
    location_type: z.string(),
    is_active: z.boolean(),
    scheduling_kind: z.string().openapi({ description: 'Open set: `one_on_one`, `round_robin`, `collective`' }),
    host: z
      .object({ id: uuidOut().nullable(), name: z.string().nullable() })
      .openapi({ description: 'The host; `id` is null for a team (round-robin and collective types)' }),
    hosts: z.array(z.object({ user_id: uuidOut(), name: z.string().nullable() })),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('MeetingType');

export const MeetingTypeList = z
  .object({ data: z.array(MeetingType), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('MeetingTypeList');

export const SlotsQuery = z.object({
  // Optional to the parser, so a missing one answers the route's own 400 (`from/to must be valid ISO dates`); required in the document.
  from: z
    .string()
    .optional()
    .openapi({ type: 'string', format: 'date-time', description: 'Inclusive; ISO 8601', param: { required: true } }),
  to: z
    .string()
    .optional()
    .openapi({
      type: 'string',
      format: 'date-time',
      description: 'Exclusive; ISO 8601, after `from`, at most 62 days later',
      param: { required: true },
    }),
});

export const Slots = z
  .object({
    meeting_type_id: uuidOut(),
    timezone: z.string().openapi({ description: 'IANA zone of the host schedule' }),
    duration_minutes: z.number().int(),
    slots: z.array(z.object({ start: z.string().openapi({ format: 'date-time' }), end: z.string().openapi({ format: 'date-time' }) })),
  })
  .openapi('MeetingTypeSlots');

export const Embed = z
  .object({
    workspace_ref: z.string(),
    slug: z.string(),
    embed_key: z.string().openapi({ description: 'Publishable `bk_` key, safe in page HTML; rotating it invalidates pasted snippets' }),
    page_url: z.string().openapi({ format: 'uri' }),
    snippet_html: z.string(),
  })
  .openapi('MeetingTypeEmbed');

const Host = z.object({
  user_id: uuidOut(),
  name: z.string().nullable(),
  role: z.string().openapi({ description: '`host` (assigned) or `co_host`' }),
});

export const Booking = z
  .object({
    id: uuidOut(),
    meeting_type_id: uuidOut(),
    contact_id: uuidOut(),
    host_user_id: uuidOut(),
    hosts: z.array(Host).openapi({ description: 'The assigned host first, then co-hosts' }),
    status: z.string().openapi({ description: 'Open set: `confirmed`, `cancelled`, `completed`, `no_show`' }),
    start_at: z.string().openapi({ format: 'date-time' }),
    end_at: z.string().openapi({ format: 'date-time' }),
    host_timezone: z.string(),
    invitee_timezone: z.string(),
    invitee_name: z.string(),
    invitee_email: z.string(),
    invitee_phone: z.string().nullable(),
    join_url: z.string().nullable(),
    notes: z.string().nullable(),
    source: z.string().openapi({ description: 'Open set: `public_page`, `manual`, `api`, `embed`' }),
    cancelled_at: z.string().nullable(),
    cancelled_by: z.string().nullable().openapi({ description: '`host` (API) or `invitee` (manage page)' }),
    cancellation_reason: z.string().nullable(),
    rescheduled_at: z.string().nullable(),
    previous_start_at: z.string().nullable(),
    reschedule_count: z.number().int(),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Booking');

export const BookingCreated = Booking.extend({ duplicate: z.boolean() }).openapi('BookingCreated');

export const BookingList = z
  .object({ data: z.array(Booking), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('BookingList');

export const BookingListQuery = z.object({
  status: enumQuery(
    BOOKING_STATUSES,
    'Exact match; another value answers 400 `Invalid status: must be one of confirmed, cancelled, completed, no_show`',
  ),
  meeting_type_id: uuidQuery('meeting_type_id'),
  from: z.string().optional().openapi({
    type: 'string',
    format: 'date-time',
    description: '`start_at >= from`; malformed answers 400 `Invalid from: must be an ISO 8601 date`',
  }),
  to: z
    .string()
    .optional()
    .openapi({ type: 'string', format: 'date-time', description: '`start_at <= to`; malformed answers 400 `Invalid to: must be an ISO 8601 date`' }),
  sort: sortQuery(BOOKING_SORTS, '-start_at'),
  limit: limitQuery({ limit: 50, cap: 500 }),
  offset: offsetQuery(),
});

export const BookingCreate = z
  .object({
    meeting_type_id: uuid('meeting_type_id'),
    start_at: z.string().max(64).openapi({ format: 'date-time', description: 'ISO 8601; must be an open slot' }),
    timezone: z.string().max(64).openapi({ description: 'IANA zone id, recorded as the invitee timezone' }),
    contact_id: uuid('contact_id').optional().openapi({ description: 'Wins over `invitee`' }),
    invitee: z
      .object({
        name: z.string().trim().min(1).max(200),
        email: z.string().trim().max(320).pipe(z.email()).openapi({ format: 'email' }),
        phone: z.string().max(40).optional(),
      })
      .strict()
      .optional()
      .openapi({ description: 'Upserted into contacts by phone/email; receives the confirmation and manage link' }),
    notes: z.string().max(2000).optional(),
    host_user_id: uuid('host_user_id').optional().openapi({ description: 'Round-robin types only: pins the booking to this active pool host' }),
  })
  .strict()
  .openapi('BookingCreate');

export const BookingCancel = z
  .object({ reason: z.string().max(1000).optional() })
  .strict()
  .openapi('BookingCancel');

export const BookingReschedule = z
  .object({
    start_at: z.string().max(64).openapi({ format: 'date-time', description: 'ISO 8601; a new open slot' }),
    timezone: z.string().max(64).optional().openapi({ description: 'New invitee timezone; omitted keeps the existing one' }),
  })
  .strict()
  .openapi('BookingReschedule');

export const BookingReassign = z
  .object({
    user_id: uuid('user_id')
      .optional()
      .openapi({ description: 'Any active workspace member; omitted: automatic round-robin re-pick excluding the current host' }),
    reason: z.string().max(1000).optional(),
    force: z
      .boolean()
      .optional()
      .openapi({ description: 'Literally `true` overrides soft availability failures (`HOST_UNAVAILABLE`); never a genuine conflict' }),
  })
  .strict()
  .openapi('BookingReassign');

export type BookingCreateInput = z.infer<typeof BookingCreate>;
export type BookingListInput = z.infer<typeof BookingListQuery>;

// ---------------------------------------------------------------- operator bodies

const wallTime = z.string().refine(isWallTime, { message: 'must be a wall time HH:MM (00:00 to 24:00)' });
const windowPair = z.tuple([wallTime, wallTime]).refine(([a, b]) => a < b, { message: 'a window must end after it starts' });

export const weeklyHoursSchema = z.object(Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(windowPair).max(24).optional()]))).strict();

const minutes = (max: number) => z.number().int().min(0).max(max);

export const meetingTypeCreate = z
  .object({
    name: headerText(z.string().trim().min(1).max(200), 'name'),
    slug: z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9-]{0,99}$/, { message: 'slug: lowercase letters, digits and dashes' }),
    duration_minutes: z.number().int().min(5).max(720),
    scheduling_kind: z.enum(SCHEDULING_KINDS),
    host_user_ids: z.array(uuid('host_user_ids')).min(1).max(MAX_POOL_HOSTS),
    timezone: z.string().max(64),
    weekly_hours: weeklyHoursSchema.nullable().optional(),
    min_notice_minutes: minutes(525_600).optional(),
    buffer_before_minutes: minutes(720).optional(),
    buffer_after_minutes: minutes(720).optional(),
    daily_cap: z.number().int().min(1).max(1000).nullable().optional(),
    slot_interval_minutes: z.number().int().min(5).max(720).optional(),
    location_type: z.string().trim().min(1).max(50).optional(),
    is_active: z.boolean().optional(),
    description: z.string().max(2000).nullable().optional(),
  })
  .strict();

export const busyBlockCreate = z.object({ start_at: z.string().max(64), end_at: z.string().max(64) }).strict();
