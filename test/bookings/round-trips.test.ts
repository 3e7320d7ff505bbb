import { describe, expect, it } from 'vitest';
import { counted } from '../support/round-trips';
import { futureHour, invitee, setupType } from './helpers';

describe('booking round trips (the bench expectations)', () => {
  it('slots: 1 (the meeting type with its calendar); a booking with contact_id: 2 (everything it decides on, then the guarded write)', async () => {
    const { ws, mt } = await setupType({ kind: 'round_robin', hostCount: 3 });
    expect((await counted(ws, 'GET', '/v1/meeting-types')).status).toBe(200); // the key look-up is cached after the first request
    const slots = await counted(ws, 'GET', `/v1/meeting-types/${mt.id}/slots?from=${futureHour()}&to=${futureHour(24 * 60)}`);
    expect(slots.status).toBe(200);
    expect(slots.roundTrips).toBe(1);
    const contact = await ws.api('POST', '/v1/contacts', { email: invitee().email });
    const booked = await counted(ws, 'POST', '/v1/bookings', {
      meeting_type_id: mt.id,
      start_at: futureHour(),
      timezone: 'UTC',
      contact_id: contact.body.id,
    });
    expect(booked.status).toBe(201);
    expect(booked.roundTrips).toBe(2);
  });
});
