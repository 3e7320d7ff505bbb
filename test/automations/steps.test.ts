import { describe, expect, it } from 'vitest';
import { outbox } from '../email/support';
import { eventually } from '../support/harness';
import { ensureSender } from '../support/routes';
import { outboxOf, template, waWorkspace } from '../whatsapp/helpers';
import { resetTimeAfterEach, timeFlies } from './time';
import { activeAutomation, contactOf, enrollmentWhen, makeWorkspace, subscribed } from './support';

resetTimeAfterEach();

const enroll = async (ws: Awaited<ReturnType<typeof makeWorkspace>>, automationId: string, contactId: string) => {
  const res = await ws.api('POST', `/v1/automations/${automationId}/enrollments`, { contact_id: contactId });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
};

describe('automation steps', () => {
  it('a wait of days passes, then the next step runs; the history says until when it waited', async () => {
    await timeFlies();
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, {
      steps: [
        { id: 'week', type: 'wait', duration: 'P7D' },
        { id: 'tag', type: 'add_tag', tag: 'later' },
      ],
    });
    const contact = await contactOf(ws);
    const { id } = await enroll(ws, automation.id, contact.id);
    const ended = await enrollmentWhen(ws, id);
    expect(ended.status).toBe('completed');
    expect(ended.steps.map((s: any) => [s.step_id, s.status])).toEqual([
      ['week', 'completed'],
      ['tag', 'completed'],
    ]);
    const until = Date.parse(ended.steps[0].result.until) - Date.parse(ended.enrolled_at);
    expect(until).toBeGreaterThanOrEqual(7 * 86_400_000 - 1000);
  });

  it('wait until an instant of the trigger, offset a day before: a booking reminder; a missing instant is skipped', async () => {
    await timeFlies();
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, {
      steps: [
        { id: 'before', type: 'wait', until: 'contact.custom_fields.renewal_at', offset: '-P1D' },
        { id: 'missing', type: 'wait', until: 'trigger.start_at' },
        { id: 'done', type: 'end' },
      ],
    });
    const renewal = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const contact = await contactOf(ws, { custom_fields: { renewal_at: renewal } });
    const ended = await enrollmentWhen(ws, (await enroll(ws, automation.id, contact.id)).id);
    expect(ended.steps.map((s: any) => [s.step_id, s.status, s.reason])).toEqual([
      ['before', 'completed', null],
      ['missing', 'skipped', 'instant_missing'],
      ['done', 'completed', null],
    ]);
    expect(ended.steps[0].result.until).toBe(new Date(Date.parse(renewal) - 86_400_000).toISOString());
  });

  it('wait_for resumes at the event, keeps the version it started on, and a branch reads what it received', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, {
      steps: [
        { id: 'updated', type: 'wait_for', event: 'contact.updated', timeout: 'P1D' },
        {
          id: 'got',
          type: 'branch',
          if: { received: 'updated' },
          then: [{ id: 'v1', type: 'add_tag', tag: 'v1' }],
          else: [{ id: 'no', type: 'add_tag', tag: 'no' }],
        },
      ],
    });
    const contact = await contactOf(ws);
    const { id } = await enroll(ws, automation.id, contact.id);
    await enrollmentWhen(ws, id, (e) => e.steps.some((s: any) => s.step_id === 'updated' && s.status === 'waiting'));
    const patched = await ws.api('PATCH', `/v1/automations/${automation.id}`, { steps: [{ id: 'v2', type: 'add_tag', tag: 'v2' }] });
    expect(patched.body.version).toBe(2);
    await ws.api('PATCH', `/v1/contacts/${contact.id}`, { city: 'Tromsø' });
    const ended = await enrollmentWhen(ws, id);
    expect(ended).toMatchObject({ status: 'completed', automation_version: 1 });
    expect(ended.steps.map((s: any) => s.step_id)).toEqual(['updated', 'got', 'v1']);
    expect(ended.steps[0].result).toMatchObject({ received: true, event_id: expect.any(String) });
    expect(ended.steps[1].result).toEqual({ branch: 'then' });
  });

  it('wait_for times out into the else arm', async () => {
    await timeFlies({ eventTimeouts: ['paid:event'] });
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, {
      steps: [
        { id: 'paid', type: 'wait_for', event: 'payment_request.paid', timeout: 'PT1H' },
        { id: 'check', type: 'branch', if: { received: 'paid' }, then: [], else: [{ id: 'remind', type: 'add_tag', tag: 'unpaid' }] },
      ],
    });
    const contact = await contactOf(ws);
    const ended = await enrollmentWhen(ws, (await enroll(ws, automation.id, contact.id)).id);
    expect(ended.steps.map((s: any) => [s.step_id, s.result])).toEqual([
      ['paid', { received: false }],
      ['check', { branch: 'else' }],
      ['remind', { tag: 'unpaid' }],
    ]);
  });

  it('an exit_on event ends the enrollment exited before any later step', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, {
      exit_on: ['deal.won'],
      steps: [
        { id: 'hold', type: 'wait', duration: 'P14D' },
        { id: 'nudge', type: 'add_tag', tag: 'stalled' },
      ],
    });
    const contact = await contactOf(ws);
    const { id } = await enroll(ws, automation.id, contact.id);
    await enrollmentWhen(ws, id, (e) => e.steps.length === 1);
    const deal = await ws.api('POST', '/v1/deals', { title: 'Big', contact_id: contact.id });
    await ws.api('POST', `/v1/deals/${deal.body.id}/status`, { status: 'won' });
    const ended = await enrollmentWhen(ws, id);
    expect(ended).toMatchObject({ status: 'exited', exit_reason: 'deal.won' });
    expect(ended.steps.map((s: any) => s.step_id)).toEqual(['hold']);
  });

  it('send_email sends once to an eligible contact with its unsubscribe link; a contact without consent is skipped', async () => {
    const ws = await makeWorkspace();
    await ensureSender(ws);
    const automation = await activeAutomation(ws, {
      re_enrollment: 'always',
      steps: [{ id: 'hello', type: 'send_email', subject: 'Hello [[first_name : friend]]', content: { markdown: 'Welcome!' } }],
    });
    const eligible = await subscribed(ws, { first_name: 'Kari' });
    const sent = await enrollmentWhen(ws, (await enroll(ws, automation.id, eligible.id)).id);
    expect(sent.steps[0]).toMatchObject({ status: 'completed', result: { send_id: expect.any(String) } });
    const [message] = await outbox(ws, eligible.email);
    expect(message.subject).toBe('Hello Kari');
    expect(message.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    const link = /<([^>]+)>/.exec(message.headers['List-Unsubscribe'])![1];
    expect(link).toMatch(/\/u\/[0-9a-f-]{36}\.a[0-9a-f]{32}$/);
    expect((await fetchPage(link, 'GET')).text).toContain('Unsubscribe');
    expect((await fetchPage(link, 'POST')).status).toBeLessThan(400);
    expect((await fetchPage(link, 'GET')).text).toContain('You are already unsubscribed');
    const consent = await ws.api('GET', `/v1/contacts/${eligible.id}/consent`);
    expect(consent.body.email.consent_state).toBe('unsubscribed');

    const unconsented = await contactOf(ws);
    const skipped = await enrollmentWhen(ws, (await enroll(ws, automation.id, unconsented.id)).id);
    expect(skipped.steps[0]).toMatchObject({ status: 'skipped', reason: 'not_email_eligible' });
    expect(await outbox(ws, unconsented.email)).toHaveLength(0);
  });

  it('send_whatsapp sends the template to the contact, consent checked at the moment of the send', async () => {
    const ws = await waWorkspace();
    const tpl = await template(ws, { status: 'approved', body: 'Hi there' });
    const automation = await activeAutomation(ws, { re_enrollment: 'always', steps: [{ id: 'wa', type: 'send_whatsapp', template_id: tpl.id }] });
    const phone = `+4791${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
    const contact = await contactOf(ws, { phone });
    const ended = await enrollmentWhen(ws, (await enroll(ws, automation.id, contact.id)).id);
    expect(ended.steps[0], JSON.stringify(ended)).toMatchObject({ status: 'completed', result: { message_id: expect.any(String) } });
    expect(await outboxOf(ws, phone)).toHaveLength(1);
  });

  it('update_contact writes the fields with source automation', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, {
      steps: [{ id: 'stage', type: 'update_contact', fields: { lifecycle_stage: 'customer', city: 'Bodø' } }],
    });
    const contact = await contactOf(ws);
    await enrollmentWhen(ws, (await enroll(ws, automation.id, contact.id)).id);
    expect((await ws.api('GET', `/v1/contacts/${contact.id}`)).body).toMatchObject({ lifecycle_stage: 'customer', city: 'Bodø' });
    const updated = await eventually(
      async () => (await ws.api('GET', '/v1/webhook-events?type=contact.updated')).body.data,
      (rows: any[]) => rows.length === 1,
    );
    expect(updated[0].data.source).toBe('automation');
  });

  it('a send reached outside the send window waits for its opening', async () => {
    const ws = await makeWorkspace();
    await ensureSender(ws);
    const today = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][new Date().getUTCDay()];
    const closed = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].filter((d) => d !== today);
    const automation = await activeAutomation(ws, {
      send_window: { days: closed.slice(0, 1), start: '09:00', end: '10:00', timezone: 'UTC' },
      steps: [{ id: 'hello', type: 'send_email', subject: 'Hi', content: { markdown: 'Hi' } }],
    });
    const contact = await subscribed(ws);
    const { id } = await enroll(ws, automation.id, contact.id);
    const waiting = await enrollmentWhen(ws, id, (e) => e.steps.length === 1);
    expect(waiting).toMatchObject({ status: 'active', steps: [{ step_id: 'hello', status: 'waiting', reason: 'send_window' }] });
    expect(await outbox(ws, contact.email)).toHaveLength(0);
  });
});

/** The hosted unsubscribe page of a link (a POST as a mailbox provider's one-click sends it). */
async function fetchPage(url: string, method: 'GET' | 'POST'): Promise<{ status: number; text: string }> {
  const { exports } = await import('cloudflare:workers');
  const path = new URL(url).pathname;
  const init =
    method === 'POST' ? { method, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' } : { method };
  const res = await (exports as any).default.fetch(new Request(`https://api.test${path}`, init));
  return { status: res.status, text: await res.text() };
}
