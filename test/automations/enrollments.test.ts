import { describe, expect, it } from 'vitest';
import { admin, eventually } from '../support/harness';
import { activeAutomation, contactOf, enrollmentsOf, enrollmentWhen, makeWorkspace } from './support';

const enroll = (ws: Awaited<ReturnType<typeof makeWorkspace>>, automationId: string, contactId: string) =>
  ws.api('POST', `/v1/automations/${automationId}/enrollments`, { contact_id: contactId });

describe('enrollments', () => {
  it('a manual enrollment needs an active automation and a contact of the workspace', async () => {
    const ws = await makeWorkspace();
    const draft = await ws.api('POST', '/v1/automations', { name: 'Draft', trigger: { event: 'manual' }, steps: [] });
    const contact = await contactOf(ws);
    const refused = await enroll(ws, draft.body.id, contact.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('automation_not_active');
    const active = await activeAutomation(ws, {});
    expect((await enroll(ws, active.id, crypto.randomUUID())).status).toBe(404);
    expect((await enroll(ws, crypto.randomUUID(), contact.id)).body.error.code).toBe('automation_not_found');
    const other = await makeWorkspace();
    const foreign = await contactOf(other);
    expect((await enroll(ws, active.id, foreign.id)).status).toBe(404);
  });

  it('re_enrollment never: once per contact ever, even after the first ended', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, { steps: [{ id: 'done', type: 'end' }] });
    const contact = await contactOf(ws);
    const first = await enroll(ws, automation.id, contact.id);
    expect(first.status).toBe(201);
    await enrollmentWhen(ws, first.body.id);
    const again = await enroll(ws, automation.id, contact.id);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'enrollment_not_allowed', message: expect.stringContaining('never') });
  });

  it('re_enrollment after_end: again once the previous one ended, never two at a time', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, { re_enrollment: 'after_end', steps: [{ id: 'hold', type: 'wait', duration: 'P30D' }] });
    const contact = await contactOf(ws);
    const first = await enroll(ws, automation.id, contact.id);
    expect((await enroll(ws, automation.id, contact.id)).status).toBe(409);
    const cancelled = await ws.api('POST', `/v1/automation-enrollments/${first.body.id}/cancel`);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await enroll(ws, automation.id, contact.id)).status).toBe(201);
  });

  it('parallel manual enrollments of one contact make one', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, { re_enrollment: 'always', steps: [{ id: 'hold', type: 'wait', duration: 'P30D' }] });
    const contact = await contactOf(ws);
    const results = await Promise.all(Array.from({ length: 8 }, () => enroll(ws, automation.id, contact.id)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    const page = await ws.api('GET', `/v1/automations/${automation.id}/enrollments`);
    expect(page.body.total).toBe(1);
  });

  it('parallel upserts that create one contact enroll it once', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, {
      trigger: { event: 'contact.created' },
      re_enrollment: 'always',
      steps: [{ id: 'tag', type: 'add_tag', tag: 'new' }],
    });
    const email = `race-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await Promise.all(Array.from({ length: 6 }, () => ws.api('POST', '/v1/contacts', { email })));
    await enrollmentsOf(ws, automation.id, 1);
    const events = await ws.api('GET', '/v1/webhook-events?type=contact.created');
    expect(events.body.total).toBe(1);
    await eventually(
      async () => (await ws.api('GET', '/v1/webhook-events?type=automation.enrollment.ended')).body.total,
      (n) => n === 1,
    );
    expect((await ws.api('GET', `/v1/automations/${automation.id}/enrollments`)).body.total).toBe(1);
  });

  it('the trigger filter is tested against the contact; always enrolls on every trigger event', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, {
      trigger: { event: 'contact.updated', filter: { city: 'Oslo' } },
      re_enrollment: 'always',
      steps: [{ id: 'done', type: 'end' }],
    });
    const osloite = await contactOf(ws, { city: 'Bergen' });
    const other = await contactOf(ws, { city: 'Bergen' });
    await ws.api('PATCH', `/v1/contacts/${osloite.id}`, { city: 'Oslo' });
    await ws.api('PATCH', `/v1/contacts/${other.id}`, { first_name: 'Still in Bergen' });
    await ws.api('PATCH', `/v1/contacts/${osloite.id}`, { first_name: 'Ola' });
    const page = await enrollmentsOf(ws, automation.id, 2);
    expect(page.data.map((e: any) => e.contact_id)).toEqual([osloite.id, osloite.id]);
    const stats = (await ws.api('GET', `/v1/automations/${automation.id}`)).body.stats;
    expect(stats.enrolled).toBe(2);
  });

  it('a paused automation enrolls no one, and events while paused are not replayed', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, { trigger: { event: 'contact.created' }, steps: [{ id: 'done', type: 'end' }] });
    await ws.api('POST', `/v1/automations/${automation.id}/pause`);
    const paused = await contactOf(ws);
    await eventually(
      async () => (await ws.api('GET', '/v1/webhook-events?type=contact.created')).body.total,
      (n) => n === 1,
    );
    await ws.api('POST', `/v1/automations/${automation.id}/activate`);
    const after = await contactOf(ws);
    const page = await enrollmentsOf(ws, automation.id, 1);
    expect(page.data.map((e: any) => e.contact_id)).toEqual([after.id]);
    expect(page.data.map((e: any) => e.contact_id)).not.toContain(paused.id);
  });

  it('lists enrollments by status and contact; refuses a malformed filter', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, { re_enrollment: 'after_end', steps: [{ id: 'hold', type: 'wait', duration: 'P30D' }] });
    const a = await contactOf(ws);
    const b = await contactOf(ws);
    const ea = (await enroll(ws, automation.id, a.id)).body;
    await enroll(ws, automation.id, b.id);
    await ws.api('POST', `/v1/automation-enrollments/${ea.id}/cancel`);
    const cancelled = await ws.api('GET', `/v1/automations/${automation.id}/enrollments?status=cancelled`);
    expect(cancelled.body.data.map((e: any) => e.contact_id)).toEqual([a.id]);
    const ofB = await ws.api('GET', `/v1/automations/${automation.id}/enrollments?contact_id=${b.id}`);
    expect(ofB.body.data.map((e: any) => e.status)).toEqual(['active']);
    expect((await ws.api('GET', `/v1/automations/${automation.id}/enrollments?status=asleep`)).status).toBe(400);
    expect((await ws.api('GET', `/v1/automations/${automation.id}/enrollments?contact_id=nope`)).status).toBe(400);
  });

  it('a cancel ends the enrollment: no further step runs; a second cancel answers it as it is', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, {
      steps: [
        { id: 'hold', type: 'wait', duration: 'P30D' },
        { id: 'tag', type: 'add_tag', tag: 'too-late' },
      ],
    });
    const contact = await contactOf(ws);
    const enrolled = (await enroll(ws, automation.id, contact.id)).body;
    await enrollmentWhen(ws, enrolled.id, (e) => e.steps.some((s: any) => s.step_id === 'hold' && s.status === 'waiting'));
    const cancelled = await ws.api('POST', `/v1/automation-enrollments/${enrolled.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', ended_at: expect.any(String) });
    expect((await ws.api('POST', `/v1/automation-enrollments/${enrolled.id}/cancel`)).body.status).toBe('cancelled');
    const ended = await eventually(
      async () => (await ws.api('GET', '/v1/webhook-events?type=automation.enrollment.ended')).body,
      (page) => page.total === 1,
    );
    expect(ended.data[0].data).toMatchObject({ enrollment_id: enrolled.id, status: 'cancelled', automation_id: automation.id });
    expect((await ws.api('GET', `/v1/contacts/${contact.id}`)).body.tags).toEqual([]);
  });

  it('archiving cancels the running enrollments', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, { steps: [{ id: 'hold', type: 'wait', duration: 'P30D' }] });
    const contact = await contactOf(ws);
    const enrolled = (await enroll(ws, automation.id, contact.id)).body;
    const archived = await ws.api('POST', `/v1/automations/${automation.id}/archive`);
    expect(archived.body.stats).toMatchObject({ enrolled: 1, active: 0, cancelled: 1 });
    expect((await ws.api('GET', `/v1/automation-enrollments/${enrolled.id}`)).body).toMatchObject({ status: 'cancelled', exit_reason: 'archived' });
  });

  it('erasing a contact cancels its enrollments and leaves no identifier; its export lists them', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, { steps: [{ id: 'hold', type: 'wait', duration: 'P30D' }] });
    const contact = await contactOf(ws);
    const enrolled = (await enroll(ws, automation.id, contact.id)).body;
    await enrollmentWhen(ws, enrolled.id, (e) => e.steps.length === 1);
    const exported = await admin('GET', `/workspaces/${ws.id}/contacts/${contact.id}/export?kind=automation_enrollments`);
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    expect(JSON.stringify(exported.body)).toContain(enrolled.id);
    expect((await admin('POST', `/workspaces/${ws.id}/contacts/${contact.id}/erase`)).status).toBeLessThan(300);
    const after = (await ws.api('GET', `/v1/automation-enrollments/${enrolled.id}`)).body;
    expect(after).toMatchObject({ status: 'cancelled', contact_id: null, exit_reason: 'contact_erased' });
    expect(JSON.stringify(after)).not.toContain(contact.id);
    expect(JSON.stringify(after)).not.toContain(contact.email);
  });
});
