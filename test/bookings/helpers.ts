import { expect } from 'vitest';
import { adminOk, makeWorkspace, type ApiResponse, type TestWorkspace } from '../support/harness';

export const ALL_DAY = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]]));

/** A UTC hour at least two days ahead (`offsetHours` later), as the API writes it. */
export function futureHour(offsetHours = 0): string {
  const base = new Date(Date.now() + 2 * 86_400_000);
  base.setUTCMinutes(0, 0, 0);
  base.setUTCHours(10);
  return new Date(base.getTime() + offsetHours * 3_600_000).toISOString();
}

export type BookingSetup = { ws: TestWorkspace; hosts: { id: string; name: string }[]; mt: any };

/** A workspace with `hostCount` members and a meeting type over them (UTC, all day, 30 minutes unless overridden). */
export async function setupType(
  opts: { kind?: string; hostCount?: number; ws?: TestWorkspace; type?: Record<string, unknown> } = {},
): Promise<BookingSetup> {
  const ws = opts.ws ?? (await makeWorkspace({}, { pipeline: false }));
  const hosts = [];
  for (let i = 0; i < (opts.hostCount ?? 1); i++) {
    const name = `Host ${i + 1}`;
    const u = await adminOk('POST', `/workspaces/${ws.id}/users`, {
      name,
      email: `host${i}-${crypto.randomUUID().slice(0, 8)}@example.com`,
      role: 'agent',
    });
    hosts.push({ id: u.id, name });
  }
  const kind = opts.kind ?? 'one_on_one';
  const mt = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
    name: 'Intro call',
    slug: `intro-${crypto.randomUUID().slice(0, 8)}`,
    duration_minutes: 30,
    scheduling_kind: kind,
    host_user_ids: hosts.map((h) => h.id),
    timezone: 'UTC',
    weekly_hours: ALL_DAY,
    ...opts.type,
  });
  return { ws, hosts, mt };
}

let n = 0;
export const invitee = (label = 'inv') => ({ name: `Invitee ${++n}`, email: `${label}-${crypto.randomUUID().slice(0, 8)}@example.com` });

export const book = (ws: TestWorkspace, body: Record<string, unknown>) => ws.api('POST', '/v1/bookings', { timezone: 'Europe/Berlin', ...body });

export function expectError(res: ApiResponse, status: number, message: string | null, code?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  if (message !== null) expect(res.body.message).toBe(message);
  if (code) expect(res.body.error_code).toBe(code);
}

/** The workspace's default sender for booking mail: a verified profile, so confirmations and invites are sent. */
export const bookingSender = (workspaceId: string) =>
  adminOk('POST', `/workspaces/${workspaceId}/sender-profiles`, {
    from_name: 'Bookings',
    from_email: 'book@mail.example.com',
    domain_verified: true,
    is_default: true,
  });
