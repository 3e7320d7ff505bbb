import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace } from '../support/harness';

describe('GET /v1/pipelines', () => {
  it('returns a plain array ordered by position, each with ordered stages', async () => {
    const ws = await makeWorkspace();
    await adminOk('POST', `/workspaces/${ws.id}/pipelines`, {
      name: 'Renewals',
      is_default: false,
      description: 'yearly',
      stages: [
        { name: 'Due', color: '#111111', win_probability: 40 },
        { name: 'Signed', win_probability: null },
      ],
    });
    const res = await ws.api('GET', '/v1/pipelines');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((p: any) => [p.name, p.position, p.is_default])).toEqual([
      ['Sales', 0, true],
      ['Renewals', 1, false],
    ]);
    const renewals = res.body[1];
    expect(renewals).toMatchObject({ workspace_id: ws.id, description: 'yearly', created_by: null });
    expect(renewals.stages.map((s: any) => [s.name, s.position, s.color, s.win_probability, s.pipeline_id])).toEqual([
      ['Due', 0, '#111111', 40, renewals.id],
      ['Signed', 1, expect.any(String), null, renewals.id],
    ]);
    expect(res.body[0].stages.map((s: any) => s.position)).toEqual([0, 1, 2]);
  });

  it('keeps exactly one default pipeline per workspace', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    await adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name: 'First', is_default: false, stages: [{ name: 'A' }] });
    let list = (await ws.api('GET', '/v1/pipelines')).body;
    expect(list.map((p: any) => p.is_default)).toEqual([true]);
    await adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name: 'Second', is_default: true, stages: [] });
    await adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name: 'Third', is_default: false, stages: [] });
    list = (await ws.api('GET', '/v1/pipelines')).body;
    expect(list.map((p: any) => [p.name, p.is_default])).toEqual([
      ['First', false],
      ['Second', true],
      ['Third', false],
    ]);
    expect(list[1].stages).toEqual([]);
  });

  it('answers an empty array without pipelines and never shows another workspace', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    await makeWorkspace();
    const res = await ws.api('GET', '/v1/pipelines');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('requires the deals feature', async () => {
    const ws = await makeWorkspace({ features: ['payments'] });
    const res = await ws.api('GET', '/v1/pipelines');
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe('FEATURE_NOT_INCLUDED_IN_PLAN');
    expect(res.body.message).toContain('deals');
  });
});

describe('operator pipeline create under parallel requests', () => {
  it('gives distinct dense positions and exactly one default', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name: `P${i}`, is_default: i % 3 === 0, stages: [{ name: 'S' }] }),
      ),
    );
    const list = (await ws.api('GET', '/v1/pipelines')).body;
    expect(list.map((p: any) => p.position)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(list.filter((p: any) => p.is_default)).toHaveLength(1);
  });

  it('makes the first pipeline the default even when created in parallel without the flag', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const created = await Promise.all(
      Array.from({ length: 4 }, (_, i) => adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name: `P${i}`, is_default: false, stages: [] })),
    );
    const list = (await ws.api('GET', '/v1/pipelines')).body;
    expect(list.filter((p: any) => p.is_default)).toHaveLength(1);
    expect(list[0].is_default).toBe(true);
    expect(created.filter((p: any) => p.is_default)).toHaveLength(1);
  });
});
