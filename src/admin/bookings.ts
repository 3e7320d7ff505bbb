import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { busyBlockCreate, meetingTypeCreate } from '../modules/bookings/dto';
import { addBusyBlock, createMeetingType, rotateEmbedKey } from '../modules/bookings/meeting-types';
import { markNoShow } from '../modules/bookings/sweep';
import { emptyBody } from './schemas';
import { body, idParam } from './validate';
import { workspaceData } from './workspace-data';

/** Meeting types, busy blocks, the embed key and the host's no-show mark (docs/operator-api.md). */
export const bookingAdmin = new Hono<AdminEnv>();

bookingAdmin.post('/workspaces/:ws/meeting-types', async (c) => {
  const { ws, db } = await workspaceData(c, idParam(c, 'ws'));
  return c.json(await createMeetingType(db, ws.id, await body(c, meetingTypeCreate)), 201);
});

bookingAdmin.post('/workspaces/:ws/users/:user/busy', async (c) => {
  const { ws, db } = await workspaceData(c, idParam(c, 'ws'));
  return c.json(await addBusyBlock(db, ws.id, idParam(c, 'user'), await body(c, busyBlockCreate)), 201);
});

bookingAdmin.post('/workspaces/:ws/embed-key/rotate', async (c) => {
  const { ws, db } = await workspaceData(c, idParam(c, 'ws'));
  await body(c, emptyBody);
  return c.json(await rotateEmbedKey(db, ws.id), 201);
});

bookingAdmin.post('/workspaces/:ws/bookings/:id/no-show', async (c) => {
  const { ws, db } = await workspaceData(c, idParam(c, 'ws'));
  await body(c, emptyBody);
  return c.json(await markNoShow(db, ws.id, idParam(c, 'id')), 200);
});
