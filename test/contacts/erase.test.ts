import { describe, expect, it } from 'vitest';
import { seededContact } from '../support/contact-records';
import { shardOf } from '../support/db';
import { admin, eventually, makeWorkspace } from '../support/harness';

/** Every row of the workspace's shard holding `needle` in any text column: `table.column`, once each. */
async function rowsHolding(d1: D1Database, workspaceId: string, needles: string[]) {
  const { results: tables } = await d1
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'")
    .all<{ name: string }>();
  const found: string[] = [];
  for (const { name } of tables) {
    const { results: columns } = await d1.prepare(`SELECT name FROM pragma_table_info('${name}')`).all<{ name: string }>();
    const scoped = columns.some((c) => c.name === 'workspace_id');
    // One query per table: for each column, how many rows hold any needle.
    const holds = (column: string) => needles.map((_, i) => `instr(CAST("${column}" AS TEXT), ?${i + 1}) > 0`).join(' OR ');
    const sums = columns.map((c, i) => `sum(${holds(c.name)}) AS c${i}`).join(', ');
    const q = `SELECT ${sums} FROM "${name}"${scoped ? ` WHERE workspace_id = ?${needles.length + 1}` : ''}`;
    const row = await d1
      .prepare(q)
      .bind(...needles, ...(scoped ? [workspaceId] : []))
      .first<Record<string, number | null>>();
    if (row) columns.forEach((c, i) => (row[`c${i}`] ?? 0) > 0 && found.push(`${name}.${c.name}`));
  }
  return [...new Set(found)].sort();
}

/** The accounting records of a workspace: how many of each, and their amounts. */
async function ledger(d1: D1Database, workspaceId: string) {
  const sum = async (q: string) => (await d1.prepare(q).bind(workspaceId).first<{ n: number; total: number }>())!;
  return {
    payments: (await sum('SELECT count(*) AS n, coalesce(sum(total_cents), 0) AS total FROM payments WHERE workspace_id = ?')).total,
    entries: (await sum('SELECT count(*) AS n, coalesce(sum(amount_cents), 0) AS total FROM payment_entries WHERE workspace_id = ?')).total,
    orders: (await sum('SELECT count(*) AS n, coalesce(sum(total_cents), 0) AS total FROM orders WHERE workspace_id = ?')).total,
    refunds: (await sum('SELECT count(*) AS n, coalesce(sum(amount_cents), 0) AS total FROM order_refunds WHERE workspace_id = ?')).total,
    requests: (await sum('SELECT count(*) AS n, coalesce(sum(amount_cents), 0) AS total FROM payment_requests WHERE workspace_id = ?')).total,
  };
}

describe('POST /admin/v1/workspaces/{ws}/contacts/{id}/erase', () => {
  it('removes every identifier of the person from every table; what stays for accounting keeps no identifier', async () => {
    const { ws, contact, email, name, phone } = await seededContact();
    const d1 = await shardOf(ws.id);
    await eventually(
      async () =>
        (await d1
          .prepare('SELECT count(*) AS n FROM email_sends WHERE workspace_id = ? AND "to" = ?')
          .bind(ws.id, `new-${email}`)
          .first<{ n: number }>())!.n,
      (n) => n >= 2,
    );
    const needles = [email, `new-${email}`, phone, name];
    expect((await rowsHolding(d1, ws.id, needles)).length).toBeGreaterThan(10);
    const kept = await ledger(d1, ws.id);
    expect(kept.orders).toBeGreaterThan(0);
    const res = await admin('POST', `/workspaces/${ws.id}/contacts/${contact.id}/erase`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: contact.id, erased_at: expect.any(String) });
    // Only the deletion event carries the last-known phone, email and name, as its contract says.
    expect(await rowsHolding(d1, ws.id, needles)).toEqual(['event_outbox.data']);
    const events = (
      await d1
        .prepare('SELECT type, data FROM event_outbox WHERE workspace_id = ? AND instr(data, ?) > 0')
        .bind(ws.id, contact.id)
        .all<{ type: string; data: string }>()
    ).results;
    const deleted = events.filter((e) => e.type === 'contact.deleted');
    expect(deleted).toHaveLength(1);
    expect(JSON.parse(deleted[0].data)).toEqual({ contact_id: contact.id, phone, email: `new-${email}`, name });
    for (const e of events.filter((e) => e.type !== 'contact.deleted')) expect(JSON.parse(e.data)).toEqual({ contact_id: contact.id });
    // Accounting keeps its records and amounts.
    expect(await ledger(d1, ws.id)).toEqual(kept);
  });

  it('leaves the contact unknown: reads, searches and filters find nothing, the same email makes a new contact, a second erase answers 404', async () => {
    const { ws, contact, email, phone } = await seededContact();
    await admin('POST', `/workspaces/${ws.id}/contacts/${contact.id}/erase`);
    expect((await ws.api('GET', `/v1/contacts/${contact.id}`)).status).toBe(404);
    for (const term of [`new-${email}`, phone.slice(-7)])
      expect((await ws.api('GET', `/v1/contacts?search=${encodeURIComponent(term)}`)).body.total).toBe(0);
    expect((await ws.api('GET', `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ email: `new-${email}` }))}`)).body.total).toBe(0);
    const again = await ws.api('POST', '/v1/contacts', { email: `new-${email}` });
    expect(again.status).toBe(201);
    expect(again.body.duplicate).toBe(false);
    expect(again.body.id).not.toBe(contact.id);
    const second = await admin('POST', `/workspaces/${ws.id}/contacts/${contact.id}/erase`);
    expect(second.status).toBe(404);
    const d1 = await shardOf(ws.id);
    expect(
      (await d1
        .prepare("SELECT count(*) AS n FROM event_outbox WHERE workspace_id = ? AND type = 'contact.deleted'")
        .bind(ws.id)
        .first<{ n: number }>())!.n,
    ).toBe(1);
    const other = await makeWorkspace();
    expect((await admin('POST', `/workspaces/${other.id}/contacts/${again.body.id}/erase`)).status).toBe(404);
  });

  it('leaves no personal data behind when writes race it', async () => {
    const { ws, contact, email, name, phone } = await seededContact();
    // The booking's confirmation goes out after its answer: mail already on its way is not a write this erase races.
    const d1 = await shardOf(ws.id);
    await eventually(
      async () =>
        (await d1
          .prepare('SELECT count(*) AS n FROM email_sends WHERE workspace_id = ? AND "to" = ?')
          .bind(ws.id, `new-${email}`)
          .first<{ n: number }>())!.n,
      (n) => n >= 2,
    );
    const writes = Array.from({ length: 8 }, (_, i) =>
      i % 2
        ? ws.api('POST', `/v1/contacts/${contact.id}/notes`, { body: `Race ${name}` })
        : ws.api('PATCH', `/v1/contacts/${contact.id}`, { city: `City ${i}`, name }),
    );
    const [erased, ...answers] = await Promise.all([admin('POST', `/workspaces/${ws.id}/contacts/${contact.id}/erase`), ...writes]);
    expect(erased.status).toBe(200);
    for (const a of answers) expect([200, 201, 404], JSON.stringify(a.body)).toContain(a.status);
    // No event after the erasure names the contact with anything but its id: a write that lost the race wrote none.
    const events = (
      await d1
        .prepare('SELECT type, data FROM event_outbox WHERE workspace_id = ? AND instr(data, ?) > 0')
        .bind(ws.id, contact.id)
        .all<{ type: string; data: string }>()
    ).results;
    expect(events.filter((e) => e.type === 'contact.deleted')).toHaveLength(1);
    for (const e of events.filter((e) => e.type !== 'contact.deleted')) expect(JSON.parse(e.data)).toEqual({ contact_id: contact.id });
    // A write that lost the race found no contact; one that won was erased with the rest.
    expect(await rowsHolding(d1, ws.id, [`new-${email}`, phone, name])).toEqual(['event_outbox.data']);
    expect((await ws.api('GET', `/v1/contacts/${contact.id}`)).status).toBe(404);
  });
});

describe('mail on its way when a contact is erased', () => {
  it('a booking confirmation that leaves after the erasure is not sent', async () => {
    const { sendBookingEmail } = await import('../../src/modules/bookings/notifications');
    const { workspaceContext } = await import('../../src/modules/workspaces/context');
    const { env } = await import('cloudflare:workers');
    const { ws, contact, email } = await seededContact();
    const d1 = await shardOf(ws.id);
    const sends = async () =>
      (await d1.prepare("SELECT count(*) AS n FROM email_sends WHERE workspace_id = ? AND source = 'booking'").bind(ws.id).first<{ n: number }>())!.n;
    const [booking] = (await d1.prepare('SELECT id FROM bookings WHERE workspace_id = ?').bind(ws.id).all<{ id: string }>()).results;
    const late = { to: `new-${email}`, subject: 'Late confirmation', html: '<p>Booked</p>', text: 'Booked', manage_url: 'https://api.test/m' };
    const ctx = { ...(await workspaceContext(env as never, ws.id)), env: env as never, baseUrl: 'https://api.test' };
    // The booking's own confirmation, sent after its answer, first.
    const before = await eventually(sends, (n) => n >= 1);
    await sendBookingEmail(ctx, booking.id, { key: `late:${booking.id}:1`, message: late, attachments: [] });
    expect(await sends()).toBe(before + 1);
    await admin('POST', `/workspaces/${ws.id}/contacts/${contact.id}/erase`);
    await sendBookingEmail(ctx, booking.id, { key: `late:${booking.id}:2`, message: late, attachments: [] });
    expect(await sends()).toBe(before + 1);
  });
});
