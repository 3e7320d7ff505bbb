import { describe, expect, it } from 'vitest';
import { activeAutomation, contactOf, enrollmentsOf, enrollmentWhen, makeWorkspace } from './support';

describe('automation runs', () => {
  it('a manual enrollment runs its steps in order and records each', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, {
      steps: [
        { id: 'tag', type: 'add_tag', tag: 'welcomed' },
        { id: 'note', type: 'add_note', body: 'Welcomed by automation' },
        { id: 'done', type: 'end' },
        { id: 'never', type: 'add_tag', tag: 'never' },
      ],
    });
    const contact = await contactOf(ws);
    const enrolled = await ws.api('POST', `/v1/automations/${automation.id}/enrollments`, { contact_id: contact.id });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
    const ended = await enrollmentWhen(ws, enrolled.body.id);
    expect(ended.status).toBe('completed');
    expect(ended.steps.map((s: any) => [s.step_id, s.status])).toEqual([
      ['tag', 'completed'],
      ['note', 'completed'],
      ['done', 'completed'],
    ]);
    const read = await ws.api('GET', `/v1/contacts/${contact.id}`);
    const tags = await ws.api('GET', '/v1/tags');
    expect(read.body.tags).toEqual([tags.body.data.find((t: any) => t.name === 'welcomed').id]);
    const notes = await ws.api('GET', `/v1/contacts/${contact.id}/notes`);
    expect(notes.body.map((n: any) => [n.body, n.source])).toEqual([['Welcomed by automation', 'automation']]);
  });

  it('an event enrolls the contact it concerns: contact.created starts the automation', async () => {
    const ws = await makeWorkspace();
    const automation = await activeAutomation(ws, { trigger: { event: 'contact.created' }, steps: [{ id: 'tag', type: 'add_tag', tag: 'new' }] });
    const contact = await contactOf(ws);
    const page = await enrollmentsOf(ws, automation.id);
    expect(page.data[0]).toMatchObject({ contact_id: contact.id, trigger: { event_type: 'contact.created' } });
    const ended = await enrollmentWhen(ws, page.data[0].id);
    expect(ended.status).toBe('completed');
  });
});
