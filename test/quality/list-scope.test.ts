import { describe, expect, it } from 'vitest';
import { listAudiences } from '../../src/modules/audiences/service';
import { listMeetingTypes } from '../../src/modules/bookings/meeting-type-list';
import { listBookings } from '../../src/modules/bookings/read';
import { listDeals } from '../../src/modules/deals/list';
import { listCampaigns as listEmailCampaigns } from '../../src/modules/email-campaigns/service';
import { listSentEmails } from '../../src/modules/emails/sent';
import { listIssues } from '../../src/modules/newsletters/issues';
import { listNewsletters } from '../../src/modules/newsletters/service';
import { listOrders } from '../../src/modules/orders/list';
import { listPaymentRequests } from '../../src/modules/payment-requests/payment-request-list';
import { listPayments } from '../../src/modules/payments/list';
import { listSuppressions } from '../../src/modules/suppressions/service';
import { listLabels } from '../../src/modules/contacts/labels/service';
import { listDeliveries } from '../../src/modules/webhooks/deliveries';
import { listCampaigns as listWhatsappCampaigns } from '../../src/modules/whatsapp/campaigns';
import { listTemplates } from '../../src/modules/whatsapp/templates';
import type { ServiceContext } from '../../src/platform/context';
import { makeWorkspace } from '../support/harness';
import { plansOf } from '../support/list-statement';

type Case = { list: string; table: string; alias?: string; run: (ctx: ServiceContext) => Promise<unknown> };

const filter = (tree: unknown) => JSON.stringify(tree);
const later = '2026-01-01T00:00:00.000Z';

/**
 * Lists whose filters name a column that leads an index spanning the shard (a sweep's `status`
 * index: due campaigns, expiring payment requests, bookings to complete) beside lists with only
 * workspace indexes, each with the filters a client can send.
 */
const CASES: Case[] = [
  { list: 'GET /v1/payment-requests?status=pending', table: 'payment_requests', run: (ctx) => listPaymentRequests(ctx, { status: 'pending' }) },
  {
    list: 'GET /v1/payment-requests?status=pending&contact_id=',
    table: 'payment_requests',
    run: (ctx) => listPaymentRequests(ctx, { status: 'pending', contact_id: crypto.randomUUID() }),
  },
  { list: 'GET /v1/email-campaigns?status=scheduled', table: 'email_campaigns', run: (ctx) => listEmailCampaigns(ctx, { status: 'scheduled' }) },
  {
    list: 'GET /v1/newsletters/{id}/issues?status=scheduled',
    table: 'newsletter_issues',
    run: (ctx) => listIssues(ctx, crypto.randomUUID(), { status: 'scheduled' }).catch(() => null),
  },
  { list: 'GET /v1/bookings?status=confirmed', table: 'bookings', run: (ctx) => listBookings(ctx, { status: 'confirmed' } as never) },
  {
    list: 'GET /v1/bookings?status=confirmed&sort=-end_at',
    table: 'bookings',
    run: (ctx) => listBookings(ctx, { status: 'confirmed', sort: '-end_at' } as never),
  },
  {
    list: 'GET /v1/bookings?status=confirmed&sort=end_at&from=',
    table: 'bookings',
    run: (ctx) => listBookings(ctx, { status: 'confirmed', sort: 'end_at', from: later } as never),
  },
  {
    list: 'GET /v1/campaigns?filter=status',
    table: 'whatsapp_campaigns',
    alias: 't',
    run: (ctx) => listWhatsappCampaigns(ctx.db, ctx.ws.id, { filter: filter({ status: 'scheduled' }) }),
  },
  {
    list: 'GET /v1/campaigns?filter=status and scheduled_at',
    table: 'whatsapp_campaigns',
    alias: 't',
    run: (ctx) =>
      listWhatsappCampaigns(ctx.db, ctx.ws.id, {
        filter: filter({
          $where: {
            and: [
              { field: 'status', op: 'eq', value: 'scheduled' },
              { field: 'scheduled_at', op: 'gte', value: later },
            ],
          },
        }),
      }),
  },
  {
    list: 'GET /v1/campaigns?filter=status in&sort=scheduled_at',
    table: 'whatsapp_campaigns',
    alias: 't',
    run: (ctx) => listWhatsappCampaigns(ctx.db, ctx.ws.id, { filter: filter({ status: ['scheduled', 'draft'] }), sort: 'scheduled_at' }),
  },
  {
    list: 'GET /v1/templates?filter=status',
    table: 'whatsapp_templates',
    alias: 't',
    run: (ctx) => listTemplates(ctx.db, ctx.ws.id, { filter: filter({ status: 'approved' }) }),
  },
  {
    list: 'GET /v1/payments?status=active&type=recurring',
    table: 'payments',
    run: (ctx) => listPayments(ctx, { status: 'active', type: 'recurring' }),
  },
  { list: 'GET /v1/deals?status=open&stage_id=', table: 'deals', run: (ctx) => listDeals(ctx, { status: 'open', stage_id: crypto.randomUUID() }) },
  { list: 'GET /v1/orders?status=paid', table: 'orders', run: (ctx) => listOrders(ctx, { status: 'paid' }) },
  {
    list: 'GET /v1/meeting-types?filter=is_active',
    table: 'meeting_types',
    alias: 't',
    run: (ctx) => listMeetingTypes(ctx.db, ctx.ws.id, { filter: filter({ is_active: true }) }),
  },
  { list: 'GET /v1/audiences?kind=static', table: 'audiences', run: (ctx) => listAudiences(ctx, { kind: 'static' }) },
  { list: 'GET /v1/suppressions?email=', table: 'email_suppressions', run: (ctx) => listSuppressions(ctx, { email: 'someone@example.com' }) },
  { list: 'GET /v1/newsletters', table: 'newsletters', run: (ctx) => listNewsletters(ctx, {}) },
  { list: 'GET /v1/emails', table: 'email_sends', run: (ctx) => listSentEmails(ctx, {}) },
  { list: 'GET /v1/emails?status=sent', table: 'email_sends', run: (ctx) => listSentEmails(ctx, { status: 'sent' }) },
  { list: 'GET /v1/emails?to=', table: 'email_sends', run: (ctx) => listSentEmails(ctx, { to: 'someone@example.com' }) },
  {
    list: 'GET /v1/emails?since=&until=',
    table: 'email_sends',
    run: (ctx) => listSentEmails(ctx, { since: '2026-01-01T00:00:00Z', until: later }),
  },
  { list: 'GET /v1/emails?idempotency_key=', table: 'email_sends', run: (ctx) => listSentEmails(ctx, { idempotency_key: 'receipt-1042' }) },
  { list: 'GET /v1/tags?search=', table: 'tags', alias: 't', run: (ctx) => listLabels(ctx.db, 'tags', ctx.ws.id, { search: 'vip' }) },
  {
    list: 'GET /admin/v1/workspaces/{ws}/webhook-deliveries?state=dead',
    table: 'webhook_deliveries',
    run: (ctx) => listDeliveries(ctx.db, ctx.ws.id, { state: 'dead', limit: 50 }),
  },
];

describe('list counts and pages start from the workspace', () => {
  it.each(CASES)('$list reads $table through an index led by workspace_id (or by rowid), never a shard-wide one', async ({ table, alias, run }) => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const plans = await plansOf(ws, run);
    const name = alias ?? table;
    const reads = plans.flat().filter((line) => new RegExp(`^(SCAN|SEARCH) ${name}( |$)`).test(line));
    expect(reads.length, plans.map((p) => p.join('\n')).join('\n--\n')).toBeGreaterThan(0);
    for (const line of reads) {
      expect(line, plans.map((p) => p.join('\n')).join('\n--\n')).toMatch(
        new RegExp(`^SEARCH ${name} USING (((COVERING )?INDEX \\w+ \\(workspace_id=\\?)|INTEGER PRIMARY KEY)`),
      );
    }
  });
});
