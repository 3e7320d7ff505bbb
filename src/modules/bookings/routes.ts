import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../platform/app-env';
import { afterResponse } from '../../platform/after-response';
import { jsonText } from '../../platform/json-text';
import { publicBaseUrl } from '../../platform/public-base';
import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { SharedErrors } from '../../platform/shared-errors';
import { createRouter, idParams } from '../../platform/validation';
import {
  Booking,
  BookingCancel,
  BookingCreate,
  BookingCreated,
  BookingList,
  BookingListQuery,
  BookingReassign,
  BookingReschedule,
  Embed,
  MeetingType,
  MeetingTypeList,
  MeetingTypeListQuery,
  Slots,
  SlotsQuery,
} from './dto';
import { durableSlotLocks } from './locks';
import { embedMaterial } from './booking-settings';
import { listMeetingTypes } from './meeting-type-list';
import { getMeetingType } from './meeting-types';
import { listSlots, slotListJson } from './slot-listing';
import { cancelBooking } from './cancel-booking';
import { createBooking } from './create-booking';
import { getBooking, listBookings } from './read';
import { reassignBooking } from './reassign-booking';
import { rescheduleBooking } from './reschedule-booking';
import { CONTACT_REFERENCE_ERRORS } from '../contacts';
import { BookingErrors } from './errors';
import { notifyFrom } from './notifications';

export const bookingRoutes = createRouter();
const typeTags = ['Meeting types'];
const tags = ['Bookings'];

/** The origin of links the service hands out: `PUBLIC_BASE_URL`, else the request's own origin. */

const id = (c: Context<AppEnv>) => c.req.param('id')!.toLowerCase();

bookingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/meeting-types',
    operationId: 'listMeetingTypes',
    tags: typeTags,
    summary: 'List meeting types',
    description:
      'Shared list conventions: `filter` (exact match, `$where`, `$gt`), `sort` (default `-created_at`), `limit` (default 50, cap 500), `offset`, `search` (name, slug, description).',
    security: bearer,
    request: { query: MeetingTypeListQuery },
    responses: { 200: jsonContent(MeetingTypeList, 'A page of meeting types') },
  }),
  async (c) => c.json(await listMeetingTypes(c.var.db, c.var.workspace.id, c.req.valid('query')), 200),
);

bookingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/meeting-types/{id}',
    operationId: 'getMeetingType',
    tags: typeTags,
    summary: 'Get a meeting type',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(MeetingType, 'The meeting type') },
    errors: [BookingErrors.meetingTypeNotFound],
  }),
  async (c) => c.json(await getMeetingType(c.var.db, c.var.workspace.id, id(c)), 200),
);

bookingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/meeting-types/{id}/slots',
    operationId: 'listMeetingTypeSlots',
    tags: typeTags,
    summary: 'Open slots of a meeting type',
    description:
      '`from` inclusive, `to` exclusive (UTC instants), at most 62 days apart. Slots honour weekly hours in the schedule zone (DST-correct), ' +
      'minimum notice, buffers, the per-host daily cap, confirmed bookings and busy blocks; round-robin slots are open while any pool host ' +
      'is free, collective slots need every host.',
    security: bearer,
    request: { params: idParams, query: SlotsQuery },
    responses: { 200: jsonContent(Slots, 'Open slots') },
    errors: [
      BookingErrors.notActive,
      BookingErrors.invalidRange,
      BookingErrors.rangeReversed,
      BookingErrors.rangeTooLong,
      BookingErrors.meetingTypeNotFound,
      BookingErrors.noSchedule,
    ],
  }),
  async (c) => jsonText<z.infer<typeof Slots>, 200>(c, slotListJson(await listSlots(c.var.db, c.var.workspace.id, id(c), c.req.valid('query'))), 200),
);

bookingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/meeting-types/{id}/embed',
    operationId: 'getMeetingTypeEmbed',
    tags: typeTags,
    summary: 'Website-embed material',
    description:
      'The workspace-level publishable `bk_` key (rotatable by the operator; ' +
      'rotation invalidates pasted snippets), the hosted booking page and a two-line snippet. ' +
      'Bookings made through the embed carry `source: embed`.',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Embed, 'Embed material') },
    errors: [BookingErrors.meetingTypeNotFound],
  }),
  async (c) => c.json(await embedMaterial(c.var.db, c.var.workspace.id, id(c), publicBaseUrl(c.env, c.req.url)), 200),
);

bookingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/bookings',
    operationId: 'listBookings',
    ignoredQuery: ['filter', 'search'],
    tags,
    summary: 'List bookings',
    description:
      'No `filter` or `search`. `status`, `meeting_type_id`, `from` (`start_at >= from`), `to` (`start_at <= to`) combine with AND; ' +
      '`sort` default `-start_at`; malformed values answer 400.',
    security: bearer,
    request: { query: BookingListQuery },
    responses: { 200: jsonContent(BookingList, 'A page of bookings') },
    errors: [BookingErrors.invalidListDate],
  }),
  async (c) => c.json(await listBookings(serviceContext(c), c.req.valid('query')), 200),
);

bookingRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/bookings/{id}',
    operationId: 'getBooking',
    tags,
    summary: 'Get a booking',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Booking, 'The booking') },
    errors: [BookingErrors.notFound],
  }),
  async (c) => c.json(await getBooking(serviceContext(c), id(c)), 200),
);

bookingRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/bookings',
    operationId: 'createBooking',
    tags,
    summary: 'Book a slot',
    description:
      '`contact_id` wins over `invitee` (upserted into contacts by phone/email). A double submit of slot + meeting type + contact ' +
      '(+ pinned host) answers the existing booking with `duplicate: true`. Slot-taking is race-safe: a start that is not an open slot ' +
      '(outside hours, inside the notice period, taken, pool exhausted, pinned host busy) answers `SLOT_TAKEN`.',
    security: bearer,
    request: {
      body: jsonBody(BookingCreate, {
        meeting_type_id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c',
        start_at: '2026-12-01T09:00:00Z',
        timezone: 'Europe/Berlin',
        invitee: { name: 'Ada Lovelace', email: 'ada@example.com' },
      }),
    },
    responses: { 201: jsonContent(BookingCreated, 'The booking, fresh or matched') },
    errors: [
      BookingErrors.noContact,
      BookingErrors.badStart,
      BookingErrors.badZone,
      BookingErrors.notActive,
      BookingErrors.pinKind,
      BookingErrors.pinPool,
      BookingErrors.meetingTypeNotFound,
      BookingErrors.noSchedule,
      BookingErrors.slotTaken.requested,
      ...CONTACT_REFERENCE_ERRORS,
      SharedErrors.concurrentChange,
    ],
  }),
  async (c) =>
    c.json(
      await createBooking(serviceContext(c), durableSlotLocks(c.env, c.executionCtx), c.req.valid('json'), {
        source: 'api',
        base: publicBaseUrl(c.env, c.req.url),
        env: c.env,
        defer: afterResponse(c.executionCtx),
      }),
      201,
    ),
);

bookingRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/bookings/{id}/cancel',
    operationId: 'cancelBooking',
    tags,
    summary: 'Cancel a booking',
    description: 'Host side: `cancelled_by: host`.',
    security: bearer,
    request: { params: idParams, body: jsonBody(BookingCancel, { reason: 'Host is ill' }) },
    responses: { 201: jsonContent(Booking, 'The cancelled booking') },
    errors: [BookingErrors.notCancellable, BookingErrors.notFound, SharedErrors.concurrentChange],
  }),
  async (c) => c.json(await cancelBooking(serviceContext(c), id(c), c.req.valid('json'), 'host', notifyFrom(c)), 201),
);

bookingRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/bookings/{id}/reschedule',
    operationId: 'rescheduleBooking',
    tags,
    summary: 'Move a booking to a new slot',
    description: 'Same host(s); the old slot is released. `timezone` omitted keeps the invitee timezone.',
    security: bearer,
    request: { params: idParams, body: jsonBody(BookingReschedule, { start_at: '2026-12-02T10:00:00Z' }) },
    responses: { 201: jsonContent(Booking, 'The rescheduled booking') },
    errors: [
      BookingErrors.notReschedulable,
      BookingErrors.badStart,
      BookingErrors.badZone,
      BookingErrors.typeGone,
      BookingErrors.notFound,
      BookingErrors.noSchedule,
      BookingErrors.slotTaken.requested,
      SharedErrors.concurrentChange,
    ],
  }),
  async (c) =>
    c.json(await rescheduleBooking(serviceContext(c), durableSlotLocks(c.env, c.executionCtx), id(c), c.req.valid('json'), notifyFrom(c)), 201),
);

bookingRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/bookings/{id}/reassign',
    operationId: 'reassignBooking',
    tags,
    summary: 'Give a booking to another host',
    description:
      "Before the booking starts, not for collective types. `force: true` overrides the target host's hours, notice, buffers, " +
      'daily cap and busy blocks (`HOST_UNAVAILABLE`), never a conflicting booking or an exhausted pool (`SLOT_TAKEN`).',
    security: bearer,
    request: { params: idParams, body: jsonBody(BookingReassign, { user_id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c', reason: 'Coverage' }) },
    responses: { 201: jsonContent(Booking, 'The booking with its new hosts') },
    errors: [
      BookingErrors.notReassignable,
      BookingErrors.started,
      BookingErrors.collective,
      BookingErrors.sameHost,
      BookingErrors.chooseHost,
      BookingErrors.targetInactive,
      BookingErrors.notFound,
      BookingErrors.typeGoneNotFound,
      BookingErrors.slotTaken.hostConflict,
      BookingErrors.slotTaken.noFreeHost,
      BookingErrors.hostUnavailable,
      BookingErrors.modified,
    ],
  }),
  async (c) => c.json(await reassignBooking(serviceContext(c), durableSlotLocks(c.env, c.executionCtx), id(c), c.req.valid('json')), 201),
);
