import { describe, expect, it } from 'vitest';
import { rowsIn } from '../support/db';
import { emailWorkspace, reportEvent, send } from './support';

type Sent = {
  id: string;
  status: string;
  to: string;
  from: string | null;
  subject: string;
  idempotency_key: string;
  provider_message_id: string | null;
  reason: string | null;
  metadata: Record<string, unknown> | null;
  tracking: { opens: boolean; clicks: boolean };
  last_event: string;
  events: { type: string; at: string; bounce_type?: string | null; machine?: boolean; url?: string }[];
  created_at: string;
};
type Page = { data: Sent[]; total: number; limit: number; offset: number };

const stamps = (ws: { id: string }, id: string) =>
  rowsIn<Record<string, string | null>>(
    ws.id,
    'SELECT delivered_at, bounced_at, complained_at, opened_at, clicked_at FROM email_sends WHERE workspace_id = ? AND id = ?',
    ws.id,
    id,
  ).then((rows) => rows[0]);

/** Send times one second apart in the order given: sends in one test can share a millisecond. */
async function spread(ws: { id: string }, ids: string[]) {
  for (const [i, id] of ids.entries()) {
    const at = new Date(Date.UTC(2026, 4, 1, 9, 0, i)).toISOString();
    await rowsIn(ws.id, 'UPDATE email_sends SET created_at = ? WHERE workspace_id = ? AND id = ?', at, ws.id, id);
  }
}

describe('GET /v1/emails/{id}', () => {
  it('answers the send as POST /v1/emails accepted it, with what it was sent as and no events yet', async () => {
    const { ws, sender } = await emailWorkspace();
    const posted = await send(ws, { to: ' Ada@Example.com ', subject: 'Receipt', metadata: { order: 7 }, tracking: { opens: true } });
    expect(posted.status).toBe(201);
    const res = await ws.api<Sent>('GET', `/v1/emails/${posted.body.id}`);
    expect(res.status).toBe(200);
    const { duplicate: _duplicate, ...accepted } = posted.body;
    expect(res.body).toMatchObject(accepted);
    expect(res.body).toMatchObject({
      status: 'sent',
      to: 'ada@example.com',
      from: sender!.from_email,
      subject: 'Receipt',
      sender_profile_id: sender!.id,
      metadata: { order: 7 },
      tracking: { opens: true, clicks: false },
      last_event: 'sent',
      events: [],
    });
    expect(res.body.provider_message_id).toEqual(expect.any(String));
  });

  it('lists delivery, open and click with the times recorded, and last_event is the latest', async () => {
    const { ws } = await emailWorkspace();
    const { body } = await send(ws, { tracking: { opens: true, clicks: true } });
    await reportEvent(body.id, { type: 'delivered' });
    await reportEvent(body.id, { type: 'opened', machine: true });
    await reportEvent(body.id, { type: 'clicked', url: 'https://shop.example.com/a' });
    // A repeat keeps the first time.
    await reportEvent(body.id, { type: 'delivered' });
    const stored = await stamps(ws, body.id);
    const res = await ws.api<Sent>('GET', `/v1/emails/${body.id}`);
    expect(res.body.events).toEqual([
      { type: 'delivered', at: stored.delivered_at },
      { type: 'opened', at: stored.opened_at, machine: true },
      { type: 'clicked', at: stored.clicked_at, url: 'https://shop.example.com/a' },
    ]);
    expect(res.body.last_event).toBe('clicked');
  });

  it('lists a bounce with its type and a complaint, each with its time', async () => {
    const { ws } = await emailWorkspace();
    const { body } = await send(ws);
    await reportEvent(body.id, { type: 'bounced', bounce_type: 'soft' });
    await reportEvent(body.id, { type: 'complained' });
    const stored = await stamps(ws, body.id);
    const res = await ws.api<Sent>('GET', `/v1/emails/${body.id}`);
    expect(res.body.events).toEqual([
      { type: 'bounced', at: stored.bounced_at, bounce_type: 'soft' },
      { type: 'complained', at: stored.complained_at },
    ]);
    expect(res.body.last_event).toBe('complained');
  });

  it('orders events by time, not by kind: the latest one is last_event', async () => {
    const { ws } = await emailWorkspace();
    const { body } = await send(ws);
    await rowsIn(
      ws.id,
      `UPDATE email_sends SET delivered_at = '2026-03-01T10:00:05.000Z', opened_at = '2026-03-01T10:00:09.000Z', machine_open = 0,
        bounced_at = '2026-03-01T10:00:07.000Z', bounce_type = 'soft' WHERE workspace_id = ? AND id = ?`,
      ws.id,
      body.id,
    );
    const res = await ws.api<Sent>('GET', `/v1/emails/${body.id}`);
    expect(res.body.events.map((e) => [e.type, e.at])).toEqual([
      ['delivered', '2026-03-01T10:00:05.000Z'],
      ['bounced', '2026-03-01T10:00:07.000Z'],
      ['opened', '2026-03-01T10:00:09.000Z'],
    ]);
    expect(res.body.last_event).toBe('opened');
  });

  it('a suppressed send reads back suppressed, with no provider message and last_event suppressed', async () => {
    const { ws } = await emailWorkspace();
    await ws.api('POST', '/v1/suppressions', { email: 'gone@example.com' });
    const { body } = await send(ws, { to: 'gone@example.com' });
    const res = await ws.api<Sent>('GET', `/v1/emails/${body.id}`);
    expect(res.body).toMatchObject({ status: 'suppressed', reason: 'suppressed', provider_message_id: null, last_event: 'suppressed', events: [] });
  });

  it("answers 404 email_not_found for an unknown id and for another workspace's send", async () => {
    const { ws } = await emailWorkspace();
    const { ws: other } = await emailWorkspace();
    const { body } = await send(other);
    for (const id of [crypto.randomUUID(), body.id, body.id.toUpperCase()]) {
      const res = await ws.api('GET', `/v1/emails/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'email_not_found', message: 'Email not found' } });
    }
    expect((await other.api('GET', `/v1/emails/${body.id.toUpperCase()}`)).status).toBe(200);
  });

  it('answers 400 for an id that is no UUID', async () => {
    const { ws } = await emailWorkspace();
    const res = await ws.api('GET', '/v1/emails/not-a-uuid');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400 });
  });
});

describe('GET /v1/emails', () => {
  it('pages newest first in the list envelope: 25 by default, limit capped at 100, offset skips', async () => {
    const { ws } = await emailWorkspace();
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) ids.push((await send(ws, { subject: `S${i}` })).body.id);
    await spread(ws, ids);
    const newestFirst = [...ids].reverse();
    const first = await ws.api<Page>('GET', '/v1/emails');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 27, limit: 25, offset: 0 });
    expect(first.body.data.map((e) => e.id)).toEqual(newestFirst.slice(0, 25));
    expect(first.body.data[0]).toMatchObject({ subject: 'S26', last_event: 'sent', events: [] });
    const rest = await ws.api<Page>('GET', '/v1/emails?limit=500&offset=25');
    expect(rest.body).toMatchObject({ total: 27, limit: 100, offset: 25 });
    expect(rest.body.data.map((e) => e.id)).toEqual(newestFirst.slice(25));
  });

  it('filters by recipient in any case, by status and by idempotency key', async () => {
    const { ws } = await emailWorkspace();
    await ws.api('POST', '/v1/suppressions', { email: 'gone@example.com' });
    const ada = await send(ws, { to: 'ada@example.com' });
    const bob = await send(ws, { to: 'bob@example.com', idempotency_key: 'order-1042' });
    const gone = await send(ws, { to: 'gone@example.com' });
    await spread(ws, [ada.body.id, bob.body.id, gone.body.id]);
    const ids = async (query: string) => (await ws.api<Page>('GET', `/v1/emails?${query}`)).body.data.map((e) => e.id);
    expect(await ids('to=ADA%40Example.com')).toEqual([ada.body.id]);
    // A list item is the single read's answer, JSON metadata and tracking flags included.
    await ws.api('POST', '/v1/emails', {
      to: 'cy@example.com',
      subject: 'Hi',
      text: 'Hi',
      idempotency_key: 'cy',
      metadata: { a: [1] },
      tracking: { clicks: true },
    });
    const [item] = (await ws.api<Page>('GET', '/v1/emails?to=cy%40example.com')).body.data;
    expect(item).toEqual((await ws.api('GET', `/v1/emails/${item.id}`)).body);
    expect(item).toMatchObject({ metadata: { a: [1] }, tracking: { opens: false, clicks: true } });
    expect(await ids('status=suppressed')).toEqual([gone.body.id]);
    expect(await ids('status=sent')).toEqual([item.id, bob.body.id, ada.body.id]);
    expect(await ids('idempotency_key=order-1042')).toEqual([bob.body.id]);
    expect(await ids('idempotency_key=ORDER-1042')).toEqual([]);
    expect(await ids('to=bob%40example.com&status=suppressed')).toEqual([]);
    expect(await ids('to=GONE%40example.com&status=suppressed')).toEqual([gone.body.id]);
    expect(await ids('to=ada%40example.com&since=2026-05-01T09:00:00Z&until=2026-05-01T09:00:01Z')).toEqual([ada.body.id]);
    expect(await ids('to=ada%40example.com&since=2026-05-01T09:00:01Z')).toEqual([]);
    const counted = await ws.api<Page>('GET', '/v1/emails?status=sent&limit=1');
    expect(counted.body).toMatchObject({ total: 3, limit: 1 });
  });

  it('since is inclusive and until exclusive on the send time, in any offset', async () => {
    const { ws } = await emailWorkspace();
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push((await send(ws)).body);
    const times = ['2026-05-01T10:00:00.000Z', '2026-05-01T11:00:00.000Z', '2026-05-01T12:00:00.000Z'];
    for (const [i, s] of sent.entries()) {
      await rowsIn(ws.id, 'UPDATE email_sends SET created_at = ? WHERE workspace_id = ? AND id = ?', times[i], ws.id, s.id);
    }
    const ids = async (query: string) => (await ws.api<Page>('GET', `/v1/emails?${query}`)).body.data.map((e) => e.id);
    expect(await ids('since=2026-05-01T11:00:00Z')).toEqual([sent[2].id, sent[1].id]);
    expect(await ids('until=2026-05-01T11:00:00Z')).toEqual([sent[0].id]);
    expect(await ids('since=2026-05-01T10:00:00Z&until=2026-05-01T12:00:00.000Z')).toEqual([sent[1].id, sent[0].id]);
    // 13:00+02:00 is 11:00 UTC.
    expect(await ids(`since=${encodeURIComponent('2026-05-01T13:00:00+02:00')}`)).toEqual([sent[2].id, sent[1].id]);
    expect((await ws.api<Page>('GET', '/v1/emails?since=&until=')).body.total).toBe(3);
  });

  it('answers 400 for malformed filters and paging', async () => {
    const { ws } = await emailWorkspace();
    const cases: [string, string][] = [
      ['status=bounced', 'Invalid status: must be one of sending, sent, suppressed'],
      ['since=yesterday', 'Invalid since: must be an ISO 8601 date-time with a time zone'],
      ['since=2026-05-01', 'Invalid since: must be an ISO 8601 date-time with a time zone'],
      ['until=2026-05-01T10:00:00', 'Invalid until: must be an ISO 8601 date-time with a time zone'],
      ['until=2026-02-30T10:00:00Z', 'Invalid until: must be an ISO 8601 date-time with a time zone'],
      ['limit=-1', 'Invalid limit: must be a non-negative integer'],
      ['offset=x', 'Invalid offset: must be a non-negative integer'],
    ];
    for (const [query, message] of cases) {
      const res = await ws.api('GET', `/v1/emails?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ statusCode: 400, message });
    }
  });

  it("never shows another workspace's sends, whatever the filter", async () => {
    const { ws } = await emailWorkspace();
    const { ws: other } = await emailWorkspace();
    const mine = await send(ws, { to: 'shared@example.com', idempotency_key: 'shared-key' });
    await send(other, { to: 'shared@example.com', idempotency_key: 'shared-key' });
    for (const query of ['', 'to=shared%40example.com', 'idempotency_key=shared-key', 'status=sent', 'since=2000-01-01T00:00:00Z']) {
      const page = (await ws.api<Page>('GET', `/v1/emails?${query}`)).body;
      expect(
        page.data.map((e) => e.id),
        query,
      ).toEqual([mine.body.id]);
      expect(page.total, query).toBe(1);
    }
  });

  it('shows only sends made through POST /v1/emails', async () => {
    const { ws } = await emailWorkspace();
    const api = await send(ws);
    const [row] = await rowsIn(ws.id, 'SELECT * FROM email_sends WHERE workspace_id = ? AND id = ?', ws.id, api.body.id);
    const other = crypto.randomUUID();
    await rowsIn(
      ws.id,
      `INSERT INTO email_sends (id, workspace_id, idempotency_key, source, status, "to", subject, track_opens, track_clicks, created_at, updated_at)
       VALUES (?, ?, NULL, 'campaign', 'sent', ?, 'Campaign', 0, 0, ?, ?)`,
      other,
      ws.id,
      row.to,
      row.created_at,
      row.created_at,
    );
    expect((await ws.api<Page>('GET', '/v1/emails')).body.data.map((e) => e.id)).toEqual([api.body.id]);
    expect((await ws.api('GET', `/v1/emails/${other}`)).status).toBe(404);
  });
});
