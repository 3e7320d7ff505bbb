import { adminOk, eventually, type TestWorkspace } from './harness';
import { ensureSender } from './routes';

/**
 * One record of a resource, created in one workspace by a factory below.
 * `marks` are distinctive values of the record (names, urls, secrets) that no
 * other workspace may ever see; `read` reads the record back through its own
 * workspace's key (the isolation sweep compares it before and after).
 */
export type Seeded = { id: string; marks: string[]; read: () => Promise<unknown> };

/** `need` gives the record of another resource in the same workspace (a note needs a contact). */
export type Factory = {
  create: (ws: TestWorkspace, need: (key: string) => Promise<Seeded>) => Promise<Seeded>;
  /** A list route that shows the record: it must hold its own workspace's record and never another's. */
  list?: string;
};

/** Weekly hours open around the clock every day (meeting types). */
export const ALL_WEEK = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]]));

/** A value no other record, workspace or test run shares. */
const distinct = (label: string) => `${label}-${crypto.randomUUID()}`;

async function ok<T = any>(ws: TestWorkspace, method: string, path: string, body?: unknown): Promise<T> {
  const res = await ws.api<T>(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Reads a record out of a list response (plain array or `{data: [...]}`) by id. */
const findIn = (body: any, id: string) => (Array.isArray(body) ? body : body.data).find((r: { id: string }) => r.id === id) ?? null;

/**
 * The record factories, keyed like a route row's placeholders: the path
 * segment before the placeholder plus the placeholder itself, so
 * `/v1/webhook-endpoints/{id}` takes a `webhook-endpoints/{id}` record and
 * `/v1/contacts/{id}/notes` a `contacts/{id}` one (see `resourceKeys` in
 * routes.ts). A module adds its entry here and its rows in routes.ts; the
 * fuzz test and the isolation sweep need no change.
 */
export const RESOURCES: Record<string, Factory> = {
  'pipelines/{id}': {
    list: '/v1/pipelines',
    create: async (ws) => {
      const name = distinct('pipeline');
      const stage = distinct('stage');
      const p = await adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name, is_default: false, stages: [{ name: stage }] });
      return { id: p.id, marks: [name, stage], read: async () => findIn(await ok(ws, 'GET', '/v1/pipelines'), p.id) };
    },
  },
  'contacts/{id}': {
    list: '/v1/contacts',
    create: async (ws) => {
      const name = distinct('contact');
      const email = `${crypto.randomUUID()}@example.com`;
      const c = await ok(ws, 'POST', '/v1/contacts', { name, email, city: distinct('city') });
      return { id: c.id, marks: [name, email, c.city], read: () => ok(ws, 'GET', `/v1/contacts/${c.id}`) };
    },
  },
  'contact-imports/{id}': {
    list: '/v1/contact-imports',
    create: async (ws) => {
      const email = `${crypto.randomUUID()}@example.com`;
      const res = await ws.api('POST', '/v1/contact-imports', undefined, { rawBody: `email\n${email}\n`, headers: { 'content-type': 'text/csv' } });
      if (res.status !== 201) throw new Error(`POST /v1/contact-imports -> ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id, marks: [], read: () => ok(ws, 'GET', `/v1/contact-imports/${res.body.id}`) };
    },
  },
  'contact-exports/{id}': {
    list: '/v1/contact-exports',
    create: async (ws) => {
      const city = distinct('city');
      const created = await ok(ws, 'POST', '/v1/contact-exports', { filter: { city } });
      // The queue writes the file in the background: the record is complete (and downloadable) once it has.
      await eventually(
        () => ok(ws, 'GET', `/v1/contact-exports/${created.id}`),
        (e) => e.status === 'completed',
      );
      return { id: created.id, marks: [city], read: () => ok(ws, 'GET', `/v1/contact-exports/${created.id}`) };
    },
  },
  'automations/{id}': {
    list: '/v1/automations',
    create: async (ws) => {
      const name = distinct('automation');
      const a = await ok(ws, 'POST', '/v1/automations', {
        name,
        trigger: { event: 'manual' },
        re_enrollment: 'always',
        steps: [{ id: 'hold', type: 'wait', duration: 'P30D' }],
      });
      await ok(ws, 'POST', `/v1/automations/${a.id}/activate`);
      return { id: a.id, marks: [name], read: () => ok(ws, 'GET', `/v1/automations/${a.id}`) };
    },
  },
  'automation-enrollments/{id}': {
    create: async (ws, need) => {
      const automation = await need('automations/{id}');
      const contact = await need('contacts/{id}');
      const e = await ok(ws, 'POST', `/v1/automations/${automation.id}/enrollments`, { contact_id: contact.id });
      return { id: e.id, marks: [], read: () => ok(ws, 'GET', `/v1/automation-enrollments/${e.id}`) };
    },
  },
  'notes/{id}': {
    create: async (ws, need) => {
      const contact = await need('contacts/{id}');
      const body = distinct('note');
      const n = await ok(ws, 'POST', `/v1/contacts/${contact.id}/notes`, { body });
      return { id: n.id, marks: [body], read: async () => findIn(await ok(ws, 'GET', `/v1/contacts/${contact.id}/notes`), n.id) };
    },
  },
  'tags/{id}': {
    list: '/v1/tags',
    create: async (ws) => {
      const name = distinct('tag');
      const t = await ok(ws, 'POST', '/v1/tags', { name });
      return { id: t.id, marks: [name], read: () => ok(ws, 'GET', `/v1/tags/${t.id}`) };
    },
  },
  'contact-groups/{id}': {
    list: '/v1/contact-groups',
    create: async (ws) => {
      const name = distinct('group');
      const g = await ok(ws, 'POST', '/v1/contact-groups', { name });
      return { id: g.id, marks: [name], read: () => ok(ws, 'GET', `/v1/contact-groups/${g.id}`) };
    },
  },
  'products/{id}': {
    list: '/v1/products',
    create: async (ws) => {
      const name = distinct('product');
      const sku = distinct('sku').slice(0, 100);
      const p = await ok(ws, 'POST', '/v1/products', { name, sku, price: 12.5 });
      return { id: p.id, marks: [name, sku], read: () => ok(ws, 'GET', `/v1/products/${p.id}`) };
    },
  },
  'deals/{id}': {
    list: '/v1/deals',
    create: async (ws, need) => {
      const contact = await need('contacts/{id}');
      const title = distinct('deal');
      const d = await ok(ws, 'POST', '/v1/deals', { contact_id: contact.id, title, amount: 99.5, external_reference: distinct('ref') });
      return { id: d.id, marks: [title, d.external_reference], read: () => ok(ws, 'GET', `/v1/deals/${d.id}`) };
    },
  },
  'payments/{id}': {
    list: '/v1/payments',
    create: async (ws, need) => {
      const contact = await need('contacts/{id}');
      const title = distinct('payment');
      // A recurring plan with its first cycle recorded: every payment route (cancel, mark, refund) applies to it.
      const p = await ok(ws, 'POST', '/v1/payments', {
        type: 'recurring',
        contact_id: contact.id,
        title,
        amount: 99.5,
        external_reference: distinct('pay-ref'),
        metadata: { mark: title },
      });
      return { id: p.id, marks: [title, p.external_reference], read: () => ok(ws, 'GET', `/v1/payments/${p.id}`) };
    },
  },
  'entries/{entryId}': {
    create: async (ws, need) => {
      const payment = await need('payments/{id}');
      const p = await ok(ws, 'GET', `/v1/payments/${payment.id}`);
      const entryId = p.entries[0].id as string;
      return {
        id: entryId,
        marks: [],
        read: async () => (await ok(ws, 'GET', `/v1/payments/${payment.id}`)).entries.find((e: { id: string }) => e.id === entryId) ?? null,
      };
    },
  },
  'orders/{id}': {
    list: '/v1/orders',
    create: async (ws, need) => {
      const contact = await need('contacts/{id}');
      const title = distinct('order-item');
      const note = distinct('order');
      // Paid, so every order route (refunds, mark-paid, cancel) applies to it.
      const o = await ok(ws, 'POST', '/v1/orders', {
        contact_id: contact.id,
        financial_status: 'paid',
        note,
        external_reference: distinct('order-ref'),
        items: [{ title, unit_price: 99.5 }],
      });
      return { id: o.id, marks: [title, note, o.external_reference], read: () => ok(ws, 'GET', `/v1/orders/${o.id}`) };
    },
  },
  'payment-requests/{id}': {
    list: '/v1/payment-requests',
    create: async (ws, need) => {
      const contact = await need('contacts/{id}');
      const title = distinct('link');
      const r = await ok(ws, 'POST', '/v1/payment-requests', { contact_id: contact.id, title, amount: 42.5 });
      return { id: r.id, marks: [title, r.pay_url], read: () => ok(ws, 'GET', `/v1/payment-requests/${r.id}`) };
    },
  },
  'meeting-types/{id}': {
    list: '/v1/meeting-types',
    create: async (ws) => {
      const name = distinct('meeting');
      const slug = distinct('slug').toLowerCase().slice(0, 60);
      const host = await adminOk('POST', `/workspaces/${ws.id}/users`, {
        name: distinct('host'),
        email: `${crypto.randomUUID()}@example.com`,
        role: 'agent',
      });
      const m = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
        name,
        slug,
        duration_minutes: 30,
        scheduling_kind: 'one_on_one',
        host_user_ids: [host.id],
        timezone: 'UTC',
        weekly_hours: ALL_WEEK,
      });
      return { id: m.id, marks: [name, slug], read: () => ok(ws, 'GET', `/v1/meeting-types/${m.id}`) };
    },
  },
  'bookings/{id}': {
    list: '/v1/bookings',
    create: async (ws) => {
      // A round-robin booking far ahead: every booking route (cancel, reschedule, reassign) applies to it.
      const hosts = [];
      for (let i = 0; i < 2; i++)
        hosts.push(
          await adminOk('POST', `/workspaces/${ws.id}/users`, { name: distinct('host'), email: `${crypto.randomUUID()}@example.com`, role: 'agent' }),
        );
      const m = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
        name: distinct('team'),
        slug: distinct('rr').toLowerCase().slice(0, 60),
        duration_minutes: 30,
        scheduling_kind: 'round_robin',
        host_user_ids: hosts.map((h) => h.id),
        timezone: 'UTC',
        weekly_hours: ALL_WEEK,
      });
      const name = distinct('invitee').slice(0, 200);
      const email = `${crypto.randomUUID()}@example.com`;
      const b = await ok(ws, 'POST', '/v1/bookings', {
        meeting_type_id: m.id,
        start_at: '2030-01-09T10:00:00Z',
        timezone: 'UTC',
        invitee: { name, email },
        notes: distinct('notes'),
      });
      return { id: b.id, marks: [name, email, b.notes], read: () => ok(ws, 'GET', `/v1/bookings/${b.id}`) };
    },
  },
  'templates/{id}': {
    list: '/v1/templates',
    create: async (ws) => {
      const name = distinct('tpl').toLowerCase().replace(/-/g, '_');
      const body = distinct('Hello from the template');
      const t = await adminOk('POST', `/workspaces/${ws.id}/templates`, { name, language: 'en_US', category: 'utility', body });
      return { id: t.id, marks: [name, body], read: () => ok(ws, 'GET', `/v1/templates/${t.id}`) };
    },
  },
  'campaigns/{id}': {
    list: '/v1/campaigns',
    create: async (ws, need) => {
      const template = await need('templates/{id}');
      const name = distinct('campaign');
      const c = await ok(ws, 'POST', '/v1/campaigns', { name, template_id: template.id, audience_filters: { city: distinct('city') } });
      return { id: c.id, marks: [name], read: () => ok(ws, 'GET', `/v1/campaigns/${c.id}`) };
    },
  },
  'email-campaigns/{id}': {
    list: '/v1/email-campaigns',
    create: async (ws) => {
      await ensureSender(ws);
      const name = distinct('campaign');
      const subject = distinct('subject');
      const c = await ok(ws, 'POST', '/v1/email-campaigns', { name, subject, content: { markdown: distinct('words') } });
      // Scheduled: every campaign route (PATCH, send, schedule, unschedule) can succeed on it.
      await ok(ws, 'POST', `/v1/email-campaigns/${c.id}/schedule`, { scheduled_at: '2031-06-01T09:00:00Z' });
      return { id: c.id, marks: [name, subject], read: () => ok(ws, 'GET', `/v1/email-campaigns/${c.id}`) };
    },
  },
  'emails/{id}': {
    list: '/v1/emails',
    create: async (ws) => {
      await ensureSender(ws);
      const to = `${distinct('to')}@example.com`;
      const subject = distinct('subject');
      const key = distinct('key');
      const e = await ok(ws, 'POST', '/v1/emails', { to, subject, text: 'Hello there', idempotency_key: key, metadata: { mark: subject } });
      return { id: e.id, marks: [to, subject, key], read: () => ok(ws, 'GET', `/v1/emails/${e.id}`) };
    },
  },
  'newsletters/{id}': {
    list: '/v1/newsletters',
    create: async (ws) => {
      const name = distinct('newsletter');
      const description = distinct('about');
      const n = await ok(ws, 'POST', '/v1/newsletters', { name, description });
      return { id: n.id, marks: [name, description], read: () => ok(ws, 'GET', `/v1/newsletters/${n.id}`) };
    },
  },
  'newsletter-issues/{id}': {
    create: async (ws, need) => {
      const n = await need('newsletters/{id}');
      const subject = distinct('issue');
      const body = distinct('words');
      const i = await ok(ws, 'POST', `/v1/newsletters/${n.id}/issues`, { subject, content: { markdown: body } });
      // Scheduled: every issue route (publish, schedule, unschedule, PATCH, DELETE) can succeed on it.
      await ok(ws, 'POST', `/v1/newsletter-issues/${i.id}/schedule`, { scheduled_at: '2031-06-01T09:00:00Z' });
      return { id: i.id, marks: [subject, body], read: () => ok(ws, 'GET', `/v1/newsletter-issues/${i.id}`) };
    },
  },
  'webhook-endpoints/{id}': {
    list: '/v1/webhook-endpoints',
    create: async (ws) => {
      const url = `https://${distinct('hooks')}.example.com/in`;
      // A workspace holds at most 3 endpoints: suites that seed one per route make room first.
      const held = (await ok(ws, 'GET', '/v1/webhook-endpoints')).data;
      if (held.length >= 3) await ws.api('DELETE', `/v1/webhook-endpoints/${held[0].id}`);
      const e = await ok(ws, 'POST', '/v1/webhook-endpoints', { url });
      return { id: e.id, marks: [url, e.secret], read: async () => findIn(await ok(ws, 'GET', '/v1/webhook-endpoints'), e.id) };
    },
  },
  'webhook-events/{id}': {
    list: '/v1/webhook-events',
    create: async (ws) => {
      const email = `${crypto.randomUUID()}@events.example.com`;
      const contact = await ok(ws, 'POST', '/v1/contacts', { email });
      const events = await ok(ws, 'GET', '/v1/webhook-events?type=contact.created&limit=100');
      const event = events.data.find((e: { data: { contact_id?: string } }) => e.data.contact_id === contact.id);
      return { id: event.id, marks: [email], read: () => ok(ws, 'GET', `/v1/webhook-events/${event.id}`) };
    },
  },
  'deliveries/{delivery_id}': {
    create: async (ws, need) => {
      const endpoint = await need('webhook-endpoints/{id}');
      const { event_id } = await ok(ws, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`);
      const find = async () =>
        (await ok(ws, 'GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=100`)).data.find(
          (d: { event_id: string }) => d.event_id === event_id,
        ) ?? null;
      const delivery = await find();
      return { id: delivery.id, marks: [event_id], read: find };
    },
  },
  'suppressions/{id}': {
    list: '/v1/suppressions',
    create: async (ws) => {
      const email = `${crypto.randomUUID()}@suppressed.example.com`;
      const note = distinct('suppression');
      const r = await ok(ws, 'POST', '/v1/suppressions', { email, note });
      return {
        id: r.id,
        marks: [email, note],
        read: async () => findIn(await ok(ws, 'GET', `/v1/suppressions?email=${encodeURIComponent(email)}`), r.id),
      };
    },
  },
  'audiences/{id}': {
    list: '/v1/audiences',
    create: async (ws) => {
      const name = distinct('audience');
      const a = await adminOk('POST', `/workspaces/${ws.id}/audiences`, { name, kind: 'dynamic', filters: { city: name } });
      return { id: a.id, marks: [name], read: async () => findIn(await ok(ws, 'GET', '/v1/audiences?limit=100'), a.id) };
    },
  },
  'sender-profiles/{id}': {
    list: '/v1/sender-profiles',
    create: async (ws) => {
      const name = distinct('sender');
      const local = crypto.randomUUID().slice(0, 8);
      const p = await adminOk('POST', `/workspaces/${ws.id}/sender-profiles`, {
        from_name: name,
        from_email: `${local}@isolation.example.com`,
        domain_verified: true,
        is_default: false,
      });
      return {
        id: p.id,
        marks: [name, `${local}@isolation.example.com`],
        read: async () => findIn(await ok(ws, 'GET', '/v1/sender-profiles?limit=100'), p.id),
      };
    },
  },
};

/** One record of each resource in `keys` (default: every resource) in `ws`, each created once even when others need it. */
export async function seedAll(ws: TestWorkspace, keys: string[] = Object.keys(RESOURCES)): Promise<Map<string, Seeded>> {
  const made = new Map<string, Promise<Seeded>>();
  const need = (key: string): Promise<Seeded> => {
    const factory = RESOURCES[key];
    if (!factory) throw new Error(`no record factory for ${key} in test/support/resources.ts`);
    if (!made.has(key)) made.set(key, factory.create(ws, need));
    return made.get(key)!;
  };
  const out = new Map<string, Seeded>();
  for (const key of keys) out.set(key, await need(key));
  return out;
}
