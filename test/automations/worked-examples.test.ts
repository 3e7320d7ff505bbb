import { describe, expect, it } from 'vitest';
import { outbox } from '../email/support';
import { adminOk, eventually } from '../support/harness';
import { ensureSender } from '../support/routes';
import { ALL_WEEK } from '../support/resources';
import { outboxOf, template, waWorkspace } from '../whatsapp/helpers';
import { resetTimeAfterEach, timeFlies } from './time';
import { activeAutomation, contactOf, enrollmentsOf, enrollmentWhen, makeWorkspace, subscribed } from './support';

resetTimeAfterEach();

/** The worked examples of docs/automations.md, end to end: the event, the run, what it sent. */
describe('worked examples', () => {
  it('order paid -> thank-you -> wait 7 days -> review request on WhatsApp', async () => {
    await timeFlies();
    const ws = await waWorkspace();
    await ensureSender(ws);
    const review = await template(ws, { status: 'approved', body: 'How was your order?' });
    const automation = await activeAutomation(ws, {
      trigger: { event: 'order.paid' },
      steps: [
        { id: 'thank_you', type: 'send_email', subject: 'Thank you, [[first_name : friend]]!', content: { markdown: 'Your order is confirmed.' } },
        { id: 'a_week', type: 'wait', duration: 'P7D' },
        { id: 'review', type: 'send_whatsapp', template_id: review.id },
      ],
    });
    const phone = `+4792${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
    const contact = await subscribed(ws, { first_name: 'Nora', phone });
    await ws.api('POST', '/v1/orders', { contact_id: contact.id, financial_status: 'paid', items: [{ title: 'Lamp', unit_price: 49 }] });
    const [enrollment] = (await enrollmentsOf(ws, automation.id)).data;
    const ended = await enrollmentWhen(ws, enrollment.id);
    expect(ended.steps.map((s: any) => [s.step_id, s.status])).toEqual([
      ['thank_you', 'completed'],
      ['a_week', 'completed'],
      ['review', 'completed'],
    ]);
    expect((await outbox(ws, contact.email)).map((m) => m.subject)).toEqual(['Thank you, Nora!']);
    expect(await outboxOf(ws, phone)).toHaveLength(1);
  });

  it('pay-link created -> wait_for paid 1 h -> else a reminder', async () => {
    await timeFlies({ eventTimeouts: ['paid:event'] });
    const ws = await makeWorkspace();
    await ensureSender(ws);
    const automation = await activeAutomation(ws, {
      trigger: { event: 'payment_request.created' },
      exit_on: ['payment_request.cancelled'],
      steps: [
        { id: 'paid', type: 'wait_for', event: 'payment_request.paid', timeout: 'PT1H' },
        {
          id: 'check',
          type: 'branch',
          if: { received: 'paid' },
          then: [],
          else: [{ id: 'remind', type: 'send_email', subject: 'Your payment link is waiting', content: { markdown: 'Pay in one click.' } }],
        },
      ],
    });
    const contact = await subscribed(ws);
    await ws.api('POST', '/v1/payment-requests', { contact_id: contact.id, title: 'Invoice 7', amount: 120 });
    const [enrollment] = (await enrollmentsOf(ws, automation.id)).data;
    const ended = await enrollmentWhen(ws, enrollment.id);
    expect(ended.steps.map((s: any) => [s.step_id, s.result?.received ?? s.result?.branch ?? s.status])).toEqual([
      ['paid', false],
      ['check', 'else'],
      ['remind', 'completed'],
    ]);
    expect((await outbox(ws, contact.email)).map((m) => m.subject)).toEqual(['Your payment link is waiting']);
  });

  it('booking created -> wait until start - 24 h -> reminder', async () => {
    await timeFlies();
    const ws = await makeWorkspace();
    await ensureSender(ws);
    const automation = await activeAutomation(ws, {
      trigger: { event: 'booking.created' },
      exit_on: ['booking.cancelled'],
      steps: [
        { id: 'day_before', type: 'wait', until: 'trigger.start_at', offset: '-PT24H' },
        { id: 'remind', type: 'send_email', subject: 'See you tomorrow', content: { markdown: 'Your meeting is tomorrow.' } },
      ],
    });
    const contact = await subscribed(ws, { name: 'Ida Invitee' });
    const host = await adminOk('POST', `/workspaces/${ws.id}/users`, {
      name: 'Hanne Host',
      email: `${crypto.randomUUID()}@example.com`,
      role: 'agent',
    });
    const type = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
      name: 'Intro',
      slug: `intro-${crypto.randomUUID().slice(0, 8)}`,
      duration_minutes: 30,
      scheduling_kind: 'one_on_one',
      host_user_ids: [host.id],
      timezone: 'UTC',
      weekly_hours: ALL_WEEK,
    });
    const booked = await ws.api('POST', '/v1/bookings', {
      meeting_type_id: type.id,
      start_at: '2030-01-09T10:00:00Z',
      timezone: 'UTC',
      invitee: { name: 'Ida Invitee', email: contact.email },
    });
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    const [enrollment] = (await enrollmentsOf(ws, automation.id)).data;
    const ended = await enrollmentWhen(ws, enrollment.id);
    expect(ended.steps[0].result.until).toBe('2030-01-08T10:00:00.000Z');
    expect(ended.steps[1].status).toBe('completed');
    expect((await outbox(ws, contact.email)).map((m) => m.subject)).toContain('See you tomorrow');
  });

  it('consent given -> a welcome series of three with waits; after an unsubscribe the rest is skipped', async () => {
    await timeFlies();
    const ws = await makeWorkspace();
    await ensureSender(ws);
    const email = (id: string, subject: string) => ({ id, type: 'send_email', subject, content: { markdown: subject } });
    const automation = await activeAutomation(ws, {
      trigger: { event: 'contact.consent_changed', filter: { email_subscribed: true } },
      steps: [
        email('welcome', 'Welcome!'),
        { id: 'two_days', type: 'wait', duration: 'P2D' },
        email('tips', 'Three tips'),
        { id: 'five_days', type: 'wait', duration: 'P5D' },
        email('offer', 'A welcome offer'),
      ],
    });
    const contact = await subscribed(ws);
    const [enrollment] = (await enrollmentsOf(ws, automation.id)).data;
    const ended = await enrollmentWhen(ws, enrollment.id);
    expect(ended.status).toBe('completed');
    expect((await outbox(ws, contact.email)).map((m) => m.subject).sort()).toEqual(['A welcome offer', 'Three tips', 'Welcome!']);
    // Consent is checked at each send: an unsubscribed contact enrolled by hand gets none of them.
    const gone = await subscribed(ws);
    await eventually(
      async () => (await ws.api('GET', `/v1/automations/${automation.id}/enrollments?contact_id=${gone.id}`)).body.data,
      (rows: any[]) => rows.length === 1 && rows[0].status !== 'active',
    );
    const late = await contactOf(ws);
    await ws.api('PUT', `/v1/contacts/${late.id}/consent/email`, { state: 'unsubscribed' });
    const manual = await ws.api('POST', `/v1/automations/${automation.id}/enrollments`, { contact_id: late.id });
    const skipped = await enrollmentWhen(ws, manual.body.id);
    expect(skipped.steps.filter((s: any) => s.type === 'send_email').map((s: any) => s.reason)).toEqual(Array(3).fill('not_email_eligible'));
  });

  it('deal created -> wait_for deal.won 14 days -> else tag stalled, move the deal and notify a webhook', async () => {
    await timeFlies({ eventTimeouts: ['won:event'] });
    const ws = await makeWorkspace();
    const endpoint = await ws.api('POST', '/v1/webhook-endpoints', { url: 'https://example.com/hooks', events: ['deal.created'] });
    const stages = (await ws.api('GET', '/v1/pipelines')).body[0].stages;
    const automation = await activeAutomation(ws, {
      trigger: { event: 'deal.created' },
      steps: [
        { id: 'won', type: 'wait_for', event: 'deal.won', timeout: 'P14D' },
        {
          id: 'check',
          type: 'branch',
          if: { received: 'won' },
          then: [],
          else: [
            { id: 'stalled', type: 'add_tag', tag: 'stalled' },
            { id: 'move', type: 'move_deal', stage_id: stages[1].id },
            { id: 'notify', type: 'webhook', endpoint_id: endpoint.body.id },
          ],
        },
      ],
    });
    const contact = await contactOf(ws);
    const deal = await ws.api('POST', '/v1/deals', { title: 'Stalling', contact_id: contact.id });
    const [enrollment] = (await enrollmentsOf(ws, automation.id)).data;
    const ended = await enrollmentWhen(ws, enrollment.id);
    expect(ended.status, JSON.stringify(ended)).toBe('completed');
    expect((await ws.api('GET', `/v1/deals/${deal.body.id}`)).body.stage_id).toBe(stages[1].id);
    const deliveries = await eventually(
      async () => (await ws.api('GET', `/v1/webhook-endpoints/${endpoint.body.id}/deliveries`)).body.data,
      (rows: any[]) => rows.some((d) => d.event_type === 'automation.webhook'),
    );
    const notified = deliveries.find((d: any) => d.event_type === 'automation.webhook');
    const event = await ws.api('GET', `/v1/webhook-events/${notified.event_id}`);
    expect(event.body.data).toMatchObject({
      automation_id: automation.id,
      enrollment_id: enrollment.id,
      step_id: 'notify',
      contact_id: contact.id,
      contact: { id: contact.id, email: contact.email },
      trigger: { event_type: 'deal.created', data: { deal_id: deal.body.id } },
    });
  });
});
