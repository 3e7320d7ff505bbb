import type { Feature } from '../../src/platform/workspace';
import { adminOk, type TestWorkspace } from './harness';

/**
 * Every /v1 route, one row each. The shared convention tests (auth, feature
 * gate, unknown body property, non-UUID path id), the fuzz test and the
 * isolation sweep all walk this table: adding a route adds a row here.
 *
 * `path` uses `{id}`-style placeholders. A placeholder names a record by the
 * path segment before it: `/v1/contacts/{id}/notes` takes a contact
 * (`contacts/{id}`), `/v1/notes/{id}` a note (`notes/{id}`); the isolation
 * sweep finds the record factory under that key in `test/support/resources.ts`.
 * A placeholder that is not a record id (e.g. `{channel}`) gets its value from
 * `params`. `body` is a valid minimal body for routes that take one (it seeds
 * the unknown-property probe, the fuzz mutations and the isolation calls).
 */
export type RouteCase = {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  feature?: Feature;
  body?: Record<string, unknown>;
  /** The non-UUID id answer, when the route makes an exception (webhook endpoint delete: 404). */
  nonUuidStatus?: number;
  /**
   * Body shape of the route's coded errors: `framework` `{statusCode, message, error}` (default) or
   * the `domain` envelope `{error: {code, message}}`. Request-shape 400s, 401, 403 and 429 are in the
   * framework shape on every route, so a `domain` route accepts both.
   */
  errorShape?: 'framework' | 'domain';
  /** A query string a successful call needs (`?from=...&to=...`), appended where a suite expects success. */
  query?: string;
  /** Values for placeholders that are not record ids, e.g. `{ channel: 'email' }`. */
  params?: Record<string, string>;
  /** The answer to another workspace's id when it is not a plain 404 (code: `error.code` or `error_code`). */
  notFound?: { status?: number; code?: string };
  /**
   * Body of call `i` of the concurrency table's parallel calls on one record
   * (default: `body` for every call). Vary it where parallel calls race on
   * different values (stages, statuses, label names).
   */
  parallelBody?: (i: number, ws: TestWorkspace) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /**
   * A route whose body is a file, not JSON (a CSV import): its media type and call `i`'s file. The JSON
   * body probes (unknown property, fuzzed bodies, misread values) skip it; its own tests cover its 400s.
   */
  file?: { contentType: string; body: (i: number) => string };
};

/** A verified default sender profile, created once per workspace (sends need one). */
const senders = new Map<string, Promise<unknown>>();
export function ensureSender(ws: TestWorkspace): Promise<unknown> {
  if (!senders.has(ws.id)) {
    senders.set(
      ws.id,
      adminOk('POST', `/workspaces/${ws.id}/sender-profiles`, {
        from_name: 'Route',
        from_email: 'route@mail.example.com',
        domain_verified: true,
        is_default: true,
      }),
    );
  }
  return senders.get(ws.id)!;
}

/** The stage ids of the workspace's pipelines, in order. */
async function stageIds(ws: TestWorkspace): Promise<string[]> {
  const res = await ws.api('GET', '/v1/pipelines');
  return (res.body as { stages: { id: string }[] }[]).flatMap((p) => p.stages.map((s) => s.id));
}

export const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/v1/pipelines', feature: 'deals' },
  { method: 'POST', path: '/v1/webhook-endpoints', body: { url: 'https://example.com/hooks' }, errorShape: 'domain' },
  { method: 'GET', path: '/v1/webhook-endpoints', errorShape: 'domain' },
  {
    method: 'DELETE',
    path: '/v1/webhook-endpoints/{id}',
    nonUuidStatus: 404,
    errorShape: 'domain',
    notFound: { code: 'endpoint_not_found' },
  },
  { method: 'GET', path: '/v1/webhook-events', errorShape: 'domain' },
  { method: 'GET', path: '/v1/webhook-events/{id}', nonUuidStatus: 404, errorShape: 'domain', notFound: { code: 'event_not_found' } },
  {
    method: 'GET',
    path: '/v1/webhook-endpoints/{id}/deliveries',
    nonUuidStatus: 404,
    errorShape: 'domain',
    notFound: { code: 'endpoint_not_found' },
  },
  {
    method: 'POST',
    path: '/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry',
    nonUuidStatus: 404,
    errorShape: 'domain',
    notFound: { code: 'endpoint_not_found' },
  },
  { method: 'POST', path: '/v1/webhook-endpoints/{id}/test', nonUuidStatus: 404, errorShape: 'domain', notFound: { code: 'endpoint_not_found' } },
  { method: 'GET', path: '/v1/contacts' },
  {
    method: 'POST',
    path: '/v1/contacts',
    body: { email: 'route@example.com' },
    parallelBody: (i) => ({ email: 'race@example.com', city: `City ${i}`, tags: [`tag ${i}`, 'shared'], custom_fields: { [`k${i}`]: i } }),
  },
  {
    method: 'POST',
    path: '/v1/contacts/batch',
    body: { contacts: [{ email: 'route@example.com' }] },
    parallelBody: (i) => ({
      contacts: [
        { email: 'race@example.com', city: `City ${i}`, tags: [`tag ${i}`, 'shared'] },
        { email: `race${i % 2}@example.com`, custom_fields: { [`k${i}`]: i } },
      ],
    }),
  },
  {
    method: 'POST',
    path: '/v1/contact-imports',
    file: { contentType: 'text/csv', body: (i) => `email,city,tags\nrace@example.com,City ${i},shared|tag ${i}\nimport${i}@example.com,,\n` },
  },
  { method: 'GET', path: '/v1/contact-imports' },
  { method: 'GET', path: '/v1/contact-imports/{id}', notFound: {} },
  { method: 'POST', path: '/v1/contact-exports', body: { filter: { lifecycle_stage: 'lead' } } },
  { method: 'GET', path: '/v1/contact-exports' },
  { method: 'GET', path: '/v1/contact-exports/{id}' },
  { method: 'GET', path: '/v1/contact-exports/{id}/download' },
  { method: 'GET', path: '/v1/contacts/{id}' },
  {
    method: 'PATCH',
    path: '/v1/contacts/{id}',
    body: { city: 'Oslo' },
    parallelBody: (i) => ({ city: `City ${i}`, tags: [`tag ${i % 3}`, 'shared'], groups: [`group ${i % 2}`], custom_fields: { [`k${i}`]: i } }),
  },
  { method: 'GET', path: '/v1/contacts/{id}/consent', errorShape: 'domain', notFound: { code: 'contact_not_found' } },
  {
    method: 'PUT',
    path: '/v1/contacts/{id}/consent/{channel}',
    params: { channel: 'email' },
    body: { state: 'subscribed' },
    parallelBody: (i) => ({ state: i % 2 ? 'subscribed' : 'unsubscribed' }),
    errorShape: 'domain',
    notFound: { code: 'contact_not_found' },
  },
  { method: 'GET', path: '/v1/contacts/{id}/score' },
  { method: 'GET', path: '/v1/contacts/{id}/notes' },
  { method: 'POST', path: '/v1/contacts/{id}/notes', body: { body: 'A note' } },
  { method: 'PATCH', path: '/v1/notes/{id}', body: { body: 'Edited' } },
  { method: 'DELETE', path: '/v1/notes/{id}' },
  { method: 'GET', path: '/v1/tags' },
  { method: 'POST', path: '/v1/tags', body: { name: 'Route tag' } },
  { method: 'GET', path: '/v1/tags/{id}' },
  { method: 'PATCH', path: '/v1/tags/{id}', body: { name: 'Renamed tag' }, parallelBody: (i) => ({ name: `Renamed tag ${i % 3}` }) },
  { method: 'GET', path: '/v1/contact-groups' },
  { method: 'POST', path: '/v1/contact-groups', body: { name: 'Route group' } },
  { method: 'GET', path: '/v1/contact-groups/{id}' },
  { method: 'PATCH', path: '/v1/contact-groups/{id}', body: { name: 'Renamed group' }, parallelBody: (i) => ({ name: `Renamed group ${i % 3}` }) },
  { method: 'GET', path: '/v1/products', errorShape: 'domain' },
  { method: 'GET', path: '/v1/products/{id}', errorShape: 'domain', notFound: { code: 'product_not_found' } },
  {
    method: 'POST',
    path: '/v1/products',
    body: { name: 'Widget' },
    parallelBody: (i) => ({ name: `Widget ${i}`, external_id: 'race-product', price: i }),
    errorShape: 'domain',
  },
  {
    method: 'PATCH',
    path: '/v1/products/{id}',
    body: { name: 'Widget' },
    parallelBody: (i) => ({ name: `Widget ${i}`, sku: `sku-${i % 2}`, price: i }),
    errorShape: 'domain',
    notFound: { code: 'product_not_found' },
  },
  { method: 'GET', path: '/v1/deals', feature: 'deals' },
  { method: 'GET', path: '/v1/deals/{id}', feature: 'deals' },
  {
    method: 'POST',
    path: '/v1/deals',
    feature: 'deals',
    body: { title: 'Deal', email: 'deal@example.com' },
    parallelBody: async (i, ws) => ({
      title: `Deal ${i}`,
      email: 'race-deal@example.com',
      external_reference: 'race-deal',
      stage_id: (await stageIds(ws))[i % 3],
    }),
  },
  {
    method: 'PATCH',
    path: '/v1/deals/{id}',
    feature: 'deals',
    body: { title: 'Deal' },
    parallelBody: (i) => ({ title: `Deal ${i}`, amount: i, note: `note ${i}` }),
  },
  {
    method: 'POST',
    path: '/v1/deals/{id}/stage',
    feature: 'deals',
    body: { stage_id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c' },
    parallelBody: async (i, ws) => ({ stage_id: (await stageIds(ws))[i % 3], index: i % 2 }),
  },
  {
    method: 'POST',
    path: '/v1/deals/{id}/status',
    feature: 'deals',
    body: { status: 'won' },
    parallelBody: (i) => (i % 3 === 2 ? { status: 'lost', lost_reason: `reason ${i}` } : { status: i % 3 ? 'open' : 'won' }),
  },
  { method: 'GET', path: '/v1/payments', feature: 'payments' },
  { method: 'GET', path: '/v1/payments/{id}', feature: 'payments' },
  {
    method: 'POST',
    path: '/v1/payments',
    feature: 'payments',
    body: { type: 'one_time', amount: 1, email: 'payment@example.com' },
    parallelBody: (i) => ({
      type: 'one_time',
      amount: i,
      email: 'race-payment@example.com',
      external_reference: 'race-payment',
      note: `note ${i}`,
      metadata: { i },
    }),
  },
  {
    method: 'PATCH',
    path: '/v1/payments/{id}',
    feature: 'payments',
    body: { note: 'Paid' },
    parallelBody: (i) => ({
      note: `note ${i}`,
      auto_generate: i % 2 === 0,
      recurring_max_occurrences: i % 3 === 0 ? null : 5 + i,
      metadata: { i },
      ...(i % 4 === 0 ? { vat_mode: 'inclusive', vat_rate: i } : {}),
    }),
  },
  { method: 'POST', path: '/v1/payments/{id}/cancel', feature: 'payments', body: {} },
  {
    method: 'POST',
    path: '/v1/payments/{id}/entries/{entryId}/mark',
    feature: 'payments',
    body: { status: 'completed' },
    parallelBody: (i) => ({ status: (['completed', 'pending', 'failed', 'refunded'] as const)[i % 4] }),
  },
  {
    method: 'POST',
    path: '/v1/payments/{id}/refund',
    feature: 'payments',
    body: { amount: 1 },
    parallelBody: (i) => (i % 3 === 2 ? {} : { amount: 1 + i, note: `refund ${i}` }),
  },
  { method: 'GET', path: '/v1/orders', feature: 'orders' },
  { method: 'GET', path: '/v1/orders/{id}', feature: 'orders' },
  {
    method: 'POST',
    path: '/v1/orders',
    feature: 'orders',
    body: { email: 'order@example.com', items: [{ title: 'Item', unit_price: 1 }] },
    parallelBody: (i) => ({
      email: 'race-order@example.com',
      external_reference: 'race-order',
      note: `note ${i}`,
      items: [{ title: `Item ${i}`, unit_price: i, quantity: 1 + i / 4 }],
      ...(i % 3 === 0 ? { financial_status: 'paid' } : {}),
    }),
  },
  {
    method: 'POST',
    path: '/v1/orders/{id}/refunds',
    feature: 'orders',
    body: { amount: 1 },
    parallelBody: (i) => (i % 3 === 2 ? { amount: 2, external_refund_id: 'race-refund' } : { amount: 1 + i, reason: `refund ${i}` }),
  },
  { method: 'POST', path: '/v1/orders/{id}/mark-paid', feature: 'orders', body: {} },
  { method: 'POST', path: '/v1/orders/{id}/cancel', feature: 'orders', body: {} },
  { method: 'GET', path: '/v1/payment-requests', feature: 'workspace_payments' },
  { method: 'GET', path: '/v1/payment-requests/{id}', feature: 'workspace_payments' },
  {
    method: 'POST',
    path: '/v1/payment-requests',
    feature: 'workspace_payments',
    body: { amount: 10, email: 'payment-request@example.com' },
    parallelBody: (i) => ({
      amount: 1 + i,
      email: 'race-payment-request@example.com',
      title: `Link ${i}`,
      ...(i % 2 ? { vat_mode: 'inclusive', vat_rate: i } : {}),
    }),
  },
  { method: 'POST', path: '/v1/payment-requests/{id}/cancel', feature: 'workspace_payments', body: {} },
  { method: 'GET', path: '/v1/contacts/{id}/documents', feature: 'payments' },
  { method: 'GET', path: '/v1/meeting-types', feature: 'booking' },
  { method: 'GET', path: '/v1/meeting-types/{id}', feature: 'booking' },
  { method: 'GET', path: '/v1/meeting-types/{id}/slots', feature: 'booking', query: '?from=2030-01-07T00:00:00Z&to=2030-01-08T00:00:00Z' },
  { method: 'GET', path: '/v1/meeting-types/{id}/embed', feature: 'booking' },
  { method: 'GET', path: '/v1/bookings', feature: 'booking' },
  { method: 'GET', path: '/v1/bookings/{id}', feature: 'booking' },
  {
    method: 'POST',
    path: '/v1/bookings',
    feature: 'booking',
    body: {
      meeting_type_id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c',
      start_at: '2030-01-07T10:00:00Z',
      timezone: 'UTC',
      invitee: { name: 'Route Invitee', email: 'route-booking@example.com' },
    },
    // Ten invitees race for one slot of a one-on-one type: one books it, the others answer 409 SLOT_TAKEN.
    parallelBody: async (i, ws) => ({
      meeting_type_id: await bookableType(ws),
      start_at: '2030-01-07T10:00:00Z',
      timezone: 'UTC',
      invitee: { name: `Racer ${i}`, email: `racer-${i}@example.com` },
    }),
  },
  { method: 'POST', path: '/v1/bookings/{id}/cancel', feature: 'booking', body: {}, parallelBody: (i) => ({ reason: `reason ${i}` }) },
  {
    method: 'POST',
    path: '/v1/bookings/{id}/reschedule',
    feature: 'booking',
    body: { start_at: '2030-01-08T10:00:00Z' },
    parallelBody: (i) => ({ start_at: `2030-01-08T${String(8 + i).padStart(2, '0')}:00:00Z`, ...(i % 2 ? { timezone: 'Asia/Kolkata' } : {}) }),
  },
  { method: 'POST', path: '/v1/bookings/{id}/reassign', feature: 'booking', body: {}, parallelBody: (i) => ({ reason: `reason ${i}` }) },
  { method: 'GET', path: '/v1/templates' },
  { method: 'GET', path: '/v1/templates/{id}' },
  {
    method: 'POST',
    path: '/v1/templates/{id}/send',
    body: { to: '+14155550100' },
    parallelBody: (i) => ({ to: i % 2 ? '+14155550100' : `+1415555${String(200 + i).padStart(4, '0')}` }),
  },
  { method: 'GET', path: '/v1/campaigns', feature: 'campaigns' },
  { method: 'GET', path: '/v1/campaigns/{id}', feature: 'campaigns' },
  {
    method: 'POST',
    path: '/v1/campaigns',
    feature: 'campaigns',
    body: { name: 'Campaign', template_id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c' },
    parallelBody: async (i, ws) => ({
      name: `Campaign ${i}`,
      template_id: (
        await adminOk('POST', `/workspaces/${ws.id}/templates`, {
          name: `race_${i}_${crypto.randomUUID().slice(0, 8)}`,
          language: 'en',
          category: 'marketing',
          body: 'Hi',
        })
      ).id,
    }),
  },
  {
    method: 'PATCH',
    path: '/v1/campaigns/{id}',
    feature: 'campaigns',
    body: { name: 'Renamed campaign' },
    parallelBody: (i) => ({
      name: `Campaign ${i}`,
      ...(i % 3 === 0 ? { scheduled_at: new Date(Date.now() + 3_600_000 + i).toISOString() } : {}),
      ...(i % 3 === 1 ? { scheduled_at: null } : {}),
    }),
  },
  {
    method: 'POST',
    path: '/v1/campaigns/{id}/execute',
    feature: 'campaigns',
    body: {},
    errorShape: 'domain',
    notFound: { code: 'campaign_not_found' },
  },
  {
    method: 'POST',
    path: '/v1/emails',
    body: { to: 'route@example.com', subject: 'Hello', text: 'Hello there', idempotency_key: 'route-send' },
    // One key for all ten: exactly one sends, the others answer 409 send_in_progress or replay it.
    parallelBody: async (i, ws) => {
      await ensureSender(ws);
      return { to: 'race@example.com', subject: `Hello ${i}`, html: `<p>Hello ${i}</p>`, idempotency_key: 'race-send', metadata: { i } };
    },
    errorShape: 'domain',
  },
  { method: 'GET', path: '/v1/emails', errorShape: 'domain' },
  { method: 'GET', path: '/v1/emails/{id}', errorShape: 'domain', notFound: { code: 'email_not_found' } },
  { method: 'GET', path: '/v1/suppressions', feature: 'email_marketing', errorShape: 'domain' },
  {
    method: 'POST',
    path: '/v1/suppressions',
    feature: 'email_marketing',
    body: { email: 'route@example.com' },
    parallelBody: (i) => ({
      email: 'race@example.com',
      reason: (['manual', 'bounce', 'complaint', 'unsubscribe'] as const)[i % 4],
      note: `note ${i}`,
    }),
    errorShape: 'domain',
  },
  { method: 'DELETE', path: '/v1/suppressions/{id}', feature: 'email_marketing', errorShape: 'domain', notFound: { code: 'suppression_not_found' } },
  { method: 'GET', path: '/v1/audiences' },
  { method: 'GET', path: '/v1/sender-profiles', feature: 'email_marketing' },
  { method: 'GET', path: '/v1/email-campaigns', feature: 'email_marketing', errorShape: 'domain' },
  {
    method: 'POST',
    path: '/v1/email-campaigns',
    feature: 'email_marketing',
    body: { name: 'Route campaign', subject: 'Hello', content: { markdown: 'Route campaign body' } },
    // One reference for all ten: one campaign, the others replay it.
    parallelBody: (i) => ({ name: `Race ${i}`, subject: `Subject ${i}`, external_reference: 'race-campaign', content: { markdown: `Body ${i}` } }),
    errorShape: 'domain',
  },
  { method: 'GET', path: '/v1/email-campaigns/{id}', feature: 'email_marketing', errorShape: 'domain', notFound: { code: 'campaign_not_found' } },
  {
    method: 'PATCH',
    path: '/v1/email-campaigns/{id}',
    feature: 'email_marketing',
    body: { name: 'Patched' },
    parallelBody: (i) => (i % 2 ? { subject: `Subject ${i}` } : { content: { markdown: `Body ${i}` }, preheader: i % 4 === 0 ? null : `P${i}` }),
    errorShape: 'domain',
    notFound: { code: 'campaign_not_found' },
  },
  {
    method: 'GET',
    path: '/v1/email-campaigns/{id}/estimate',
    feature: 'email_marketing',
    errorShape: 'domain',
    notFound: { code: 'campaign_not_found' },
  },
  {
    method: 'POST',
    path: '/v1/email-campaigns/{id}/send',
    feature: 'email_marketing',
    body: {},
    errorShape: 'domain',
    notFound: { code: 'campaign_not_found' },
  },
  {
    method: 'POST',
    path: '/v1/email-campaigns/{id}/schedule',
    feature: 'email_marketing',
    body: { scheduled_at: '2031-01-01T09:00:00Z' },
    parallelBody: (i) => ({ scheduled_at: `2031-01-${String((i % 28) + 1).padStart(2, '0')}T09:00:00Z` }),
    errorShape: 'domain',
    notFound: { code: 'campaign_not_found' },
  },
  {
    method: 'POST',
    path: '/v1/email-campaigns/{id}/unschedule',
    feature: 'email_marketing',
    body: {},
    errorShape: 'domain',
    notFound: { code: 'campaign_not_found' },
  },
  { method: 'GET', path: '/v1/newsletters', feature: 'newsletters', errorShape: 'domain' },
  {
    method: 'POST',
    path: '/v1/newsletters',
    feature: 'newsletters',
    body: { name: 'Route newsletter' },
    parallelBody: (i) => ({ name: i % 2 ? 'Race Newsletter' : 'race newsletter', description: `d${i}` }),
    errorShape: 'domain',
  },
  { method: 'GET', path: '/v1/newsletters/{id}', feature: 'newsletters', errorShape: 'domain', notFound: { code: 'newsletter_not_found' } },
  { method: 'GET', path: '/v1/newsletters/{id}/issues', feature: 'newsletters', errorShape: 'domain', notFound: { code: 'newsletter_not_found' } },
  {
    method: 'POST',
    path: '/v1/newsletters/{id}/issues',
    feature: 'newsletters',
    body: { subject: 'Route issue', content: { markdown: 'Route issue body' } },
    parallelBody: (i) => ({ subject: `Race ${i}`, external_reference: 'race-issue', content: { markdown: `Body ${i}` } }),
    errorShape: 'domain',
    notFound: { code: 'newsletter_not_found' },
  },
  { method: 'GET', path: '/v1/newsletter-issues/{id}', feature: 'newsletters', errorShape: 'domain', notFound: { code: 'issue_not_found' } },
  {
    method: 'PATCH',
    path: '/v1/newsletter-issues/{id}',
    feature: 'newsletters',
    body: { subject: 'Patched' },
    parallelBody: (i) => (i % 2 ? { subject: `Subject ${i}` } : { content: { markdown: `Body ${i}` }, include_in_archive: i % 4 === 0 }),
    errorShape: 'domain',
    notFound: { code: 'issue_not_found' },
  },
  { method: 'DELETE', path: '/v1/newsletter-issues/{id}', feature: 'newsletters', errorShape: 'domain', notFound: { code: 'issue_not_found' } },
  {
    method: 'POST',
    path: '/v1/newsletter-issues/{id}/publish',
    feature: 'newsletters',
    body: {},
    errorShape: 'domain',
    notFound: { code: 'issue_not_found' },
  },
  {
    method: 'POST',
    path: '/v1/newsletter-issues/{id}/schedule',
    feature: 'newsletters',
    body: { scheduled_at: '2031-01-01T09:00:00Z' },
    parallelBody: (i) => ({ scheduled_at: `2031-01-${String((i % 28) + 1).padStart(2, '0')}T09:00:00Z` }),
    errorShape: 'domain',
    notFound: { code: 'issue_not_found' },
  },
  {
    method: 'POST',
    path: '/v1/newsletter-issues/{id}/unschedule',
    feature: 'newsletters',
    body: {},
    errorShape: 'domain',
    notFound: { code: 'issue_not_found' },
  },
  { method: 'POST', path: '/v1/automations', body: { name: 'Route automation', trigger: { event: 'manual' }, steps: [] }, errorShape: 'domain' },
  { method: 'GET', path: '/v1/automations', errorShape: 'domain' },
  { method: 'GET', path: '/v1/automations/{id}', errorShape: 'domain', notFound: { code: 'automation_not_found' } },
  {
    method: 'PATCH',
    path: '/v1/automations/{id}',
    body: { name: 'Patched automation' },
    parallelBody: (i) => (i % 2 ? { name: `Automation ${i}` } : { steps: [{ id: `s${i}`, type: 'end' }] }),
    errorShape: 'domain',
    notFound: { code: 'automation_not_found' },
  },
  { method: 'POST', path: '/v1/automations/{id}/activate', errorShape: 'domain', notFound: { code: 'automation_not_found' } },
  { method: 'POST', path: '/v1/automations/{id}/pause', errorShape: 'domain', notFound: { code: 'automation_not_found' } },
  { method: 'POST', path: '/v1/automations/{id}/archive', errorShape: 'domain', notFound: { code: 'automation_not_found' } },
  {
    method: 'POST',
    path: '/v1/automations/{id}/enrollments',
    body: { contact_id: '0192f0c1-7a4e-7cc2-9a51-3f1f1c9e2b10' },
    parallelBody: async (_i, ws) => ({
      contact_id: (await ws.api('POST', '/v1/contacts', { email: `enroll-${crypto.randomUUID()}@example.com` })).body.id,
    }),
    errorShape: 'domain',
    notFound: { code: 'automation_not_found' },
  },
  { method: 'GET', path: '/v1/automations/{id}/enrollments', errorShape: 'domain', notFound: { code: 'automation_not_found' } },
  { method: 'GET', path: '/v1/automation-enrollments/{id}', errorShape: 'domain', notFound: { code: 'enrollment_not_found' } },
  { method: 'POST', path: '/v1/automation-enrollments/{id}/cancel', errorShape: 'domain', notFound: { code: 'enrollment_not_found' } },
];

const bookableTypes = new Map<string, Promise<string>>();

/** A one-on-one meeting type of the workspace open all week (made once per workspace). */
function bookableType(ws: TestWorkspace): Promise<string> {
  if (!bookableTypes.has(ws.id))
    bookableTypes.set(
      ws.id,
      import('./resources').then((r) => r.RESOURCES['meeting-types/{id}'].create(ws, () => Promise.reject(new Error('no need'))).then((s) => s.id)),
    );
  return bookableTypes.get(ws.id)!;
}

/** The route's path with `id` for every id placeholder and the row's fixed values for the others. */
export const concretePath = (route: RouteCase, id: string) => route.path.replace(/\{([^}]+)\}/g, (_, name: string) => route.params?.[name] ?? id);

/** The placeholders of a route path, e.g. `['id']` for `/v1/notes/{id}`. */
export const placeholders = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

/** The resource key of each placeholder: the segment before it plus the placeholder (`notes/{id}`). */
export const resourceKeys = (path: string): Record<string, string> =>
  Object.fromEntries([...path.matchAll(/([^/]+)\/\{([^}]+)\}/g)].map((m) => [m[2], `${m[1]}/{${m[2]}}`]));

/** Whether the route takes a JSON body. */
export const takesBody = (r: RouteCase) => !r.file && (r.method === 'POST' || r.method === 'PATCH' || r.method === 'PUT');

export const mutates = (r: RouteCase) => r.method !== 'GET';
