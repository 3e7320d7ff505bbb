import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { admin, adminOk, eventually, freshIp, makeWorkspace, type TestWorkspace } from '../support/harness';
import { rowsIn } from '../support/db';
import { publicPost, unreachableLimiter } from '../support/public-posts';
import { inOneRateWindow } from '../support/rate-windows';
import { futureHour, setupType, bookingSender } from './helpers';

/** A booking type whose workspace sends confirmations (a verified default sender). */
async function sendingType(ws?: TestWorkspace) {
  const setup = await setupType({ ws });
  await bookingSender(setup.ws.id);
  return { ...setup, path: `/book/${setup.ws.id}/${setup.mt.slug}` };
}

const bookingForm = (hour: number) => ({
  start_at: futureHour(hour),
  timezone: 'UTC',
  name: `Guest ${hour}`,
  email: `guest-${hour}-${crypto.randomUUID().slice(0, 6)}@example.com`,
});

const bookingsOf = async (wsId: string) =>
  (await rowsIn<{ n: number }>(wsId, 'SELECT count(*) AS n FROM bookings WHERE workspace_id = ?', wsId))[0].n;
const mailsOf = async (wsId: string) => (await adminOk('GET', `/workspaces/${wsId}/outbox?channel=email&limit=200`)).data.length as number;

const retryAfter = (headers: Headers) => Number(headers.get('retry-after'));

describe('hosted booking form: limits', () => {
  it('the 11th post from one IP in a minute answers a 429 page with Retry-After, books and mails nothing; another IP still books', async () => {
    await inOneRateWindow(async () => {
      const { ws, path } = await sendingType();
      const ip = freshIp();
      for (let hour = 0; hour < 10; hour++) {
        const res = await publicPost(path, { ip, fields: bookingForm(hour) });
        expect(res.status, res.body.slice(0, 500)).toBe(303);
      }
      await eventually(
        () => mailsOf(ws.id),
        (n) => n === 10,
      );
      const refused = await publicPost(path, { ip, fields: bookingForm(10) });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toContain('text/html');
      expect(refused.body).toContain('Too many requests');
      expect(retryAfter(refused.headers)).toBeGreaterThanOrEqual(1);
      expect(retryAfter(refused.headers)).toBeLessThanOrEqual(60);
      expect(await bookingsOf(ws.id)).toBe(10);
      expect(await mailsOf(ws.id)).toBe(10);

      const other = await publicPost(path, { ip: freshIp(), fields: bookingForm(11) });
      expect(other.status).toBe(303);
      expect(await bookingsOf(ws.id)).toBe(11);
    });
  });

  it('answers the framework-shape JSON 429 when JSON was sent; RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE sets the budget', async () => {
    await inOneRateWindow(async () => {
      const { path } = await sendingType();
      const ip = freshIp();
      const vars = { RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '2' };
      for (let i = 0; i < 2; i++) expect((await publicPost(path, { ip, json: {}, vars })).status).toBe(400);
      const refused = await publicPost(path, { ip, json: {}, vars });
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        message: expect.stringMatching(/^Rate limit exceeded: 2 requests per minute per source IP\. Retry after \d+ seconds\.$/),
      });
      expect(retryAfter(refused.headers)).toBeGreaterThanOrEqual(1);
    });
  });

  it('caps bookings per workspace and hour across IPs (rate_limits.bookings_per_hour); an operator change applies at once', async () => {
    await inOneRateWindow(async () => {
      const { ws, path } = await sendingType(await makeWorkspace({ rate_limits: { bookings_per_hour: 3 } }, { pipeline: false }));
      for (let hour = 0; hour < 3; hour++) expect((await publicPost(path, { ip: freshIp(), fields: bookingForm(hour) })).status).toBe(303);
      await eventually(
        () => mailsOf(ws.id),
        (n) => n === 3,
      );
      const refused = await publicPost(path, { ip: freshIp(), fields: bookingForm(3) });
      expect(refused.status).toBe(429);
      expect(refused.body).toContain('Too many requests');
      expect(retryAfter(refused.headers)).toBeGreaterThanOrEqual(1);
      expect(retryAfter(refused.headers)).toBeLessThanOrEqual(3600);
      const json = await publicPost(path, { ip: freshIp(), json: {} });
      expect(json.status).toBe(400); // an incomplete form is refused before it counts against the workspace
      expect(await bookingsOf(ws.id)).toBe(3);
      expect(await mailsOf(ws.id)).toBe(3);

      const patched = await adminOk('PATCH', `/workspaces/${ws.id}`, { rate_limits: { bookings_per_hour: 5 } });
      expect(patched.rate_limits).toEqual({ bookings_per_hour: 5 });
      // The refused attempt counted too: one more booking fits under five.
      expect((await publicPost(path, { ip: freshIp(), fields: bookingForm(4) })).status).toBe(303);
      const capped = await publicPost(path, { ip: freshIp(), fields: bookingForm(5) });
      expect(capped.status).toBe(429);
      expect(await bookingsOf(ws.id)).toBe(4);
    });
  });

  it('a reschedule through the manage page mails the invitee, so it spends the same hourly budget: past it, 429 and nothing moved or mailed', async () => {
    await inOneRateWindow(async () => {
      const { ws, path } = await sendingType(await makeWorkspace({ rate_limits: { bookings_per_hour: 2 } }, { pipeline: false }));
      const booked = await publicPost(path, { ip: freshIp(), fields: bookingForm(1) });
      expect(booked.status).toBe(303);
      const manage = new URL(booked.headers.get('location')!).pathname.replace(/\?.*$/, '');
      const moved = await publicPost(`${manage}/reschedule`, { ip: freshIp(), fields: { start_at: futureHour(3), timezone: 'UTC' } });
      expect(moved.status, moved.body.slice(0, 500)).toBe(303);
      await eventually(
        () => mailsOf(ws.id),
        (n) => n === 2,
      );
      const refused = await publicPost(`${manage}/reschedule`, { ip: freshIp(), fields: { start_at: futureHour(5), timezone: 'UTC' } });
      expect(refused.status).toBe(429);
      expect(retryAfter(refused.headers)).toBeGreaterThan(0);
      const [row] = await rowsIn<{ start_at: string }>(ws.id, 'SELECT start_at FROM bookings WHERE workspace_id = ?', ws.id);
      expect(row.start_at).toBe(futureHour(3));
      expect(await mailsOf(ws.id)).toBe(2);
    });
  });

  it('holds 100 bookings per workspace and hour by default, whatever the number of IPs', async () => {
    await inOneRateWindow(async () => {
      const { ws, path } = await sendingType();
      // 99 bookings' worth of the hour already counted, as if from 99 addresses.
      const counter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`bookings:${ws.id}`));
      for (let i = 0; i < 99; i++) await counter.hit(3_600_000);
      expect((await publicPost(path, { ip: freshIp(), fields: bookingForm(0) })).status).toBe(303);
      const refused = await publicPost(path, { ip: freshIp(), fields: bookingForm(1) });
      expect(refused.status).toBe(429);
      expect(await bookingsOf(ws.id)).toBe(1);
    });
  });

  it('fails closed while the limiter cannot be reached: 503 with Retry-After, nothing booked', async () => {
    const { ws, path } = await sendingType();
    const res = await publicPost(path, { ip: freshIp(), fields: bookingForm(0), vars: { RATE_LIMITER: unreachableLimiter } });
    expect(res.status).toBe(503);
    expect(res.body).toContain('Temporarily unavailable');
    expect(retryAfter(res.headers)).toBe(30);
    expect(await bookingsOf(ws.id)).toBe(0);
  });

  it('the operator setting is validated like the other rate limits', async () => {
    for (const bookings_per_hour of [0, -1, 1.5, '10', 1_000_001]) {
      expect((await admin('POST', '/workspaces', { name: 'x', rate_limits: { bookings_per_hour } })).status, String(bookings_per_hour)).toBe(400);
    }
    const ws = await adminOk('POST', '/workspaces', { name: 'x', rate_limits: { bookings_per_hour: 1_000_000 } });
    expect(ws.rate_limits).toEqual({ bookings_per_hour: 1_000_000 });
    expect((await admin('PATCH', `/workspaces/${ws.id}`, { rate_limits: { bookings_per_hour: 0 } })).status).toBe(400);
    expect((await adminOk('PATCH', `/workspaces/${ws.id}`, { rate_limits: { bookings_per_hour: null } })).rate_limits).toEqual({});
  });
});
