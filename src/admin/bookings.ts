import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { busyBlockCreate, meetingTypeCreate, MeetingType, addBusyBlock, createMeetingType, rotateEmbedKey, markNoShow } from '../modules/bookings';
import { BusyBlock, EmbedKey, NoShow } from './answers';
import { adminRoute } from './route';
import { idParam } from './validate';
import { workspaceData } from './workspace-data';

/** Meeting types, busy blocks, the embed key and the host's no-show mark (docs/operator-api.md). */
export const bookingAdmin = new Hono<AdminEnv>();

const WS = { ws: 'The workspace id' };

adminRoute(
  bookingAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/meeting-types',
    operationId: 'createMeetingType',
    tag: 'Catalog',
    summary: 'Create a meeting type',
    description: 'What invitees can book: hosts, weekly hours in the schedule zone, duration, notice, buffers, caps.',
    params: WS,
    body: {
      schema: meetingTypeCreate,
      example: {
        name: 'Discovery call',
        slug: 'discovery-call',
        duration_minutes: 30,
        scheduling_kind: 'one_on_one',
        host_user_ids: ['01a209ad-ce43-7fca-bcd8-0d2d74988cb4'],
        timezone: 'Europe/Berlin',
        weekly_hours: { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']] },
      },
    },
    responses: {
      201: { description: 'The meeting type, as `GET /v1/meeting-types/{id}` reads it', schema: MeetingType },
      404: { description: '`Workspace not found`' },
      409: { description: '`A meeting type with this slug already exists`' },
    },
  },
  async (c, read) => {
    const { ws, db } = await workspaceData(c, idParam(c, 'ws'));
    return c.json(await createMeetingType(db, ws.id, await read()), 201);
  },
);

adminRoute(
  bookingAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/users/{user}/busy',
    operationId: 'createBusyBlock',
    tag: 'Catalog',
    summary: "Add a busy block to a host's calendar",
    description: "A block from the host's external calendar: bookings over it answer `HOST_UNAVAILABLE` unless forced.",
    params: { ...WS, user: 'The workspace member (host) id' },
    body: { schema: busyBlockCreate, example: { start_at: '2030-01-07T12:00:00Z', end_at: '2030-01-07T13:00:00Z' } },
    responses: { 201: { description: 'The busy block', schema: BusyBlock }, 404: { description: '`Workspace not found` or `User not found`' } },
  },
  async (c, read) => {
    const { ws, db } = await workspaceData(c, idParam(c, 'ws'));
    return c.json(await addBusyBlock(db, ws.id, idParam(c, 'user'), await read()), 201);
  },
);

adminRoute(
  bookingAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/embed-key/rotate',
    operationId: 'rotateEmbedKey',
    tag: 'Catalog',
    summary: "Rotate the workspace's booking embed key",
    params: WS,
    responses: { 201: { description: 'The new key', schema: EmbedKey }, 404: { description: '`Workspace not found`' } },
  },
  async (c, read) => {
    const { ws, db } = await workspaceData(c, idParam(c, 'ws'));
    await read();
    return c.json(await rotateEmbedKey(db, ws.id), 201);
  },
);

adminRoute(
  bookingAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/bookings/{id}/no-show',
    operationId: 'markBookingNoShow',
    tag: 'Contacts',
    summary: 'The host marks the invitee as a no-show',
    params: { ...WS, id: 'The booking id' },
    responses: { 200: { description: 'The booking, marked', schema: NoShow }, 404: { description: '`Workspace not found` or `Booking not found`' } },
    description: 'Only a confirmed booking: otherwise 400 `Only confirmed bookings can be marked as no-show`.',
  },
  async (c, read) => {
    const { ws, db } = await workspaceData(c, idParam(c, 'ws'));
    await read();
    return c.json(await markNoShow(db, ws.id, idParam(c, 'id')), 200);
  },
);
