import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { makeWorkspace, uuidRe } from '../support/harness';
import { dbFor } from '../../src/platform/d1/db';
import { redriveContactJobs } from '../../src/modules/contacts/bulk/redrive';
import { wiring } from '../../src/wiring';
import { shardOf } from '../support/db';
import { deliver } from '../support/send-queue';
import { callWith, drain, heldEnv, upload } from './bulk-helpers';
import { blacklist, outbox, rows } from './helpers';
import { neutralizedCell, restoredCell } from '../../src/modules/contacts/bulk/columns';

const files = (env as unknown as Bindings).FILES;
const storedFiles = async (workspaceId: string) => (await files.list({ prefix: `contact-imports/${workspaceId}/` })).objects.map((o) => o.key);

describe('CSV contact imports', () => {
  it('imports 1,050 rows end to end in chunks (the last one partial), without contact events, and deletes the file', async () => {
    const ws = await makeWorkspace({}, { pipeline: false, bulk: true });
    const held = heldEnv();
    const lines = ['email,name,tags,custom_fields.n,lifecycle_stage'];
    for (let i = 0; i < 1_050; i++) lines.push(`user${i}@example.com,Person ${i},${i % 2 ? 'odd' : 'even'}|all,${i},lead`);
    const res = await upload(held.env, ws, lines.join('\n'));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(uuidRe),
      status: 'queued',
      total_rows: 1_050,
      processed_rows: 0,
      created: 0,
      updated: 0,
      failed: 0,
      errors: [],
      created_at: expect.any(String),
      completed_at: null,
    });
    expect(await storedFiles(ws.id)).toHaveLength(1);
    expect(held.sent).toHaveLength(1);
    await drain(held.env, held.sent);
    const done = await callWith(held.env, ws, 'GET', `/v1/contact-imports/${res.body.id}`);
    expect(done.body).toMatchObject({
      status: 'completed',
      total_rows: 1_050,
      processed_rows: 1_050,
      created: 1_050,
      updated: 0,
      failed: 0,
      errors: [],
    });
    expect(done.body.completed_at).toEqual(expect.any(String));
    expect(await rows('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toHaveLength(1_050);
    const [sample] = await rows<any>(
      'SELECT source, custom_fields, lifecycle_stage FROM contacts WHERE workspace_id = ? AND email = ?',
      ws.id,
      'user7@example.com',
    );
    expect(sample).toEqual({ source: 'import', custom_fields: '{"n":7}', lifecycle_stage: 'lead' });
    expect(await rows('SELECT id FROM tags WHERE workspace_id = ?', ws.id)).toHaveLength(3);
    const events = await outbox(ws.id);
    expect(events.filter((e) => e.type.startsWith('contact.'))).toEqual([]);
    expect(await storedFiles(ws.id)).toEqual([]);
  });

  it('reports row errors (1-based data rows) and applies every other row as POST /v1/contacts would', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    await blacklist(ws, '+14155550181');
    const held = heldEnv();
    const csv =
      '\ufeffemail;phone;name;city;lifecycle_stage;employee_count\r\n' +
      'a@example.com;;"Lovelace; Ada";"Lon""don";lead;12\r\n' +
      'not-an-email;;Bad;;;\r\n' +
      '\r\n' +
      'b@example.com;+14155550181;Blocked;;;\r\n' +
      'c@example.com;;C;;stranger;\r\n' +
      'A@example.com;;;Paris;;many\r\n' +
      'a@example.com;;;Rome;;\r\n';
    const res = await upload(held.env, ws, csv, 'text/csv; charset=utf-8');
    expect(res.status).toBe(201);
    expect(res.body.total_rows).toBe(6);
    await drain(held.env, held.sent);
    const done = (await callWith(held.env, ws, 'GET', `/v1/contact-imports/${res.body.id}`)).body;
    expect(done).toMatchObject({ status: 'completed', processed_rows: 6, created: 1, updated: 1, failed: 4 });
    expect(done.errors).toEqual([
      { row: 2, message: 'email: Invalid email address' },
      { row: 3, message: 'This phone number is blacklisted in the workspace' },
      { row: 4, message: expect.stringMatching(/^lifecycle_stage: /) },
      { row: 5, message: expect.stringMatching(/^employee_count: /) },
    ]);
    const [a] = await rows<any>(
      'SELECT name, city, employee_count, source FROM contacts WHERE workspace_id = ? AND email = ?',
      ws.id,
      'a@example.com',
    );
    expect(a).toEqual({ name: 'Lovelace; Ada', city: 'Rome', employee_count: 12, source: 'import' });
  });

  it('refuses a file it cannot import with 400 naming the problem, and creates nothing', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const held = heldEnv();
    const cases: [BodyInit, string, string][] = [
      ['email,nickname,custom_fields.\na@example.com,x,y\n', 'text/csv', 'Unknown columns: "nickname", "custom_fields."'],
      ['', 'text/csv', 'The file is empty'],
      ['email\n\n', 'text/csv', 'The file is empty'],
      ['{"email": "a@example.com"}', 'application/json', 'Content-Type must be text/csv'],
      ['email\na@example.com\n', 'text/plain', 'Content-Type must be text/csv'],
      ['email,name\n"a@example.com,x\n', 'text/csv', 'The file is not valid CSV'],
      ['email,name\na@example.com,x,y\n', 'text/csv', 'The file is not valid CSV'],
      ['email,email\na@example.com,b@example.com\n', 'text/csv', 'column "email" is named twice'],
      [`name\n${'x\n'.repeat(100_001)}`, 'text/csv', 'more than 100000 data rows'],
      [new Uint8Array([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0xff, 0xfe]), 'text/csv', 'not valid UTF-8'],
      [`name\n${'y'.repeat(10 * 1024 * 1024)}\n`, 'text/csv', 'larger than 10 MB'],
    ];
    for (const [body, type, message] of cases) {
      const res = await upload(held.env, ws, body, type);
      expect(res.status, message).toBe(400);
      expect(res.body.message).toContain(message);
    }
    expect((await callWith(held.env, ws, 'GET', '/v1/contact-imports')).body).toEqual({ data: [], total: 0, limit: 20, offset: 0 });
    expect(await storedFiles(ws.id)).toEqual([]);
    expect(held.sent).toEqual([]);
  });

  it('stops reading a body past 10 MB whatever its declared length', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const held = heldEnv();
    let pulled = 0;
    const endless = new ReadableStream({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024 * 1024).fill(0x61));
      },
    });
    const res = await upload(held.env, ws, endless as never);
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('IMPORT_FILE_TOO_LARGE');
    expect(pulled).toBeLessThan(20);
  });

  it('resumes after a crash without duplicating a row, and a replayed message writes nothing twice', async () => {
    const ws = await makeWorkspace({}, { pipeline: false, bulk: true });
    // Rows without phone or email: each creates a contact, so a row applied twice would show.
    const lines = ['name,city', ...Array.from({ length: 2_500 }, (_, i) => `Anon ${i},Town ${i % 7}`)];
    let failures = 1;
    const base = heldEnv();
    const crashing = {
      ...base.env,
      SEND_QUEUE: {
        send: async (body: unknown) => {
          // The chunks of the first message committed, then the invocation dies before handing on.
          if (failures-- > 0) throw new Error('crash');
          base.sent.push(body);
        },
      },
    } as unknown as Bindings;
    const res = await upload(base.env, ws, lines.join('\n'));
    const first = base.sent.splice(0);
    await deliver(crashing, base.sent, first);
    // The queue redelivers the message that failed; the same message also arrives twice at once.
    expect(base.sent).toHaveLength(1);
    const redelivered = base.sent.splice(0);
    await Promise.all([deliver(crashing, base.sent, redelivered), deliver(crashing, base.sent, redelivered)]);
    await drain(crashing, base.sent);
    const done = (await callWith(base.env, ws, 'GET', `/v1/contact-imports/${res.body.id}`)).body;
    expect(done).toMatchObject({ status: 'completed', processed_rows: 2_500, created: 2_500, failed: 0 });
    expect(await rows('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toHaveLength(2_500);
    const names = await rows<any>('SELECT name, count(*) AS n FROM contacts WHERE workspace_id = ? GROUP BY name HAVING n > 1', ws.id);
    expect(names).toEqual([]);
  });

  it('lists imports newest first and answers 404 for another workspace’s import', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const other = await makeWorkspace({}, { pipeline: false });
    const held = heldEnv();
    const a = await upload(held.env, ws, 'email\na@example.com\n');
    const b = await upload(held.env, ws, 'email\nb@example.com\n');
    const list = await callWith(held.env, ws, 'GET', '/v1/contact-imports?limit=1');
    expect(list.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(list.body.data.map((d: any) => d.id)).toEqual([b.body.id]);
    expect((await callWith(held.env, ws, 'GET', '/v1/contact-imports?offset=1')).body.data.map((d: any) => d.id)).toEqual([a.body.id]);
    const hidden = await callWith(held.env, other, 'GET', `/v1/contact-imports/${a.body.id}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.message).toBe(`Contact import ${a.body.id} not found`);
  });

  it('re-drives an import whose message was lost, from its cursor', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const held = heldEnv();
    const lines = ['email', ...Array.from({ length: 250 }, (_, i) => `lost${i}@example.com`)];
    const res = await upload(held.env, ws, lines.join('\n'));
    held.sent.splice(0);
    const shard = await shardOf(ws.id);
    expect((await wiring.sweeps.get('contact-jobs')!(held.env, dbFor(shard))).contact_imports_redriven).toBe(0);
    // Its message was lost: the row stops moving at `moved`, and a lease (a minute) later the sweep sends another.
    const moved = Date.now() - 10 * 60_000;
    await shard.prepare('UPDATE contact_imports SET updated_at = ? WHERE id = ?').bind(new Date(moved).toISOString(), res.body.id).run();
    const redrive = (at: number) => redriveContactJobs(held.env, dbFor(shard), at);
    expect((await redrive(moved + 59_000)).contact_imports_redriven).toBe(0);
    expect((await redrive(moved + 61_000)).contact_imports_redriven).toBe(1);
    expect((await redrive(moved + 62_000)).contact_imports_redriven).toBe(0);
    await drain(held.env, held.sent);
    const done = (await callWith(held.env, ws, 'GET', `/v1/contact-imports/${res.body.id}`)).body;
    expect(done).toMatchObject({ status: 'completed', created: 250 });
  });

  it('replays an upload sent again with the same Idempotency-Key, and refuses another file under it', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const held = heldEnv();
    const keyed = (csv: string) => callWith(held.env, ws, 'POST', '/v1/contact-imports', csv, 'text/csv', { 'Idempotency-Key': 'import-1' });
    const first = await keyed('email\nkeyed@example.com\n');
    const again = await keyed('email\nkeyed@example.com\n');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect((await keyed('email\nother@example.com\n')).status).toBe(422);
    expect(held.sent).toHaveLength(1);
  });

  it('ends failed when the file can no longer be read, and keeps what it applied', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const held = heldEnv();
    const res = await upload(held.env, ws, ['email', ...Array.from({ length: 30 }, (_, i) => `gone${i}@example.com`)].join('\n'));
    for (const key of await storedFiles(ws.id)) await files.delete(key);
    await drain(held.env, held.sent);
    const done = (await callWith(held.env, ws, 'GET', `/v1/contact-imports/${res.body.id}`)).body;
    expect(done).toMatchObject({ status: 'failed', processed_rows: 0, created: 0, completed_at: expect.any(String) });
    expect(await rows('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toEqual([]);
  });

  it('takes exactly one quote off a cell that starts with quotes before a formula character, as an export writes it', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const held = heldEnv();
    const csv =
      'email,phone,name,annual_revenue,tags,custom_fields.note\r\n' +
      "guarded@example.com,'+14155550166,'=1+1,'-12.5,'@first|second,'''-x\r\n" +
      "plain@example.com,,'plain,,,''\r\n";
    const res = await upload(held.env, ws, csv);
    expect(res.status).toBe(201);
    await drain(held.env, held.sent);
    expect((await callWith(held.env, ws, 'GET', `/v1/contact-imports/${res.body.id}`)).body).toMatchObject({
      status: 'completed',
      created: 2,
      failed: 0,
    });
    const list = (await callWith(held.env, ws, 'GET', '/v1/contacts?limit=10')).body.data;
    const guarded = list.find((c: any) => c.email === 'guarded@example.com');
    expect(guarded).toMatchObject({ phone: '+14155550166', name: '=1+1', annual_revenue: -12.5, custom_fields: { note: "''-x" } });
    const tags = (await callWith(held.env, ws, 'GET', '/v1/tags?limit=10')).body.data.map((t: any) => t.name).sort();
    expect(tags).toEqual(['@first', 'second']);
    // A quote before anything else is the cell's own.
    expect(list.find((c: any) => c.email === 'plain@example.com')).toMatchObject({ name: "'plain", custom_fields: { note: "''" } });
  });

  it('reads back every value an export cell writes: the formula guard and its removal undo each other', () => {
    const values = [
      '',
      "'",
      "''",
      '=',
      "'=",
      "''=",
      '=SUM(A1)',
      "'=SUM(A1)",
      '+1',
      '-',
      '@x',
      '\tx',
      '\rx',
      "'\tx",
      'a=b',
      "'a",
      "''a",
      'x\r',
      ' =x',
    ];
    for (const value of values) {
      const cell = neutralizedCell(value);
      expect(restoredCell(cell), JSON.stringify(value)).toBe(value);
      expect(/^[=+\-@\t\r]/.test(cell), JSON.stringify(cell)).toBe(false);
    }
    expect(neutralizedCell('=1+1')).toBe("'=1+1");
    expect(neutralizedCell('plain')).toBe('plain');
    expect(neutralizedCell("'plain")).toBe("'plain");
  });
});
