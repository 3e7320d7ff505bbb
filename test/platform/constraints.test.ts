import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constraintFailure, failedOn, guardOf, raisedBy, uniqueOn } from '../../src/platform/d1/constraints';
import { dbFor, runBatch } from '../../src/platform/d1/db';
import { contacts } from '../../src/modules/contacts/schema';

// Tables of this test's own, declared as the schema declares tables, so each kind of failure is provoked on real D1.
const probes = sqliteTable(
  'constraint_probe',
  { id: text('id').primaryKey(), ws: text('ws').notNull(), email: text('email'), note: text('note'), score: integer('score') },
  (t) => [uniqueIndex('constraint_probe_ws_email').on(t.ws, t.email)],
);
const pairs = sqliteTable('constraint_probe_pairs', { a: text('a').notNull(), b: text('b').notNull() }, (t) => [primaryKey({ columns: [t.a, t.b] })]);

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS constraint_probe (id TEXT PRIMARY KEY NOT NULL, ws TEXT NOT NULL, email TEXT, note TEXT, score INTEGER CHECK (score > 0), parent TEXT REFERENCES constraint_probe(id))',
  'CREATE UNIQUE INDEX IF NOT EXISTS constraint_probe_ws_email ON constraint_probe (ws, email)',
  'CREATE UNIQUE INDEX IF NOT EXISTS constraint_probe_note_key ON constraint_probe (lower(note))',
  'CREATE TABLE IF NOT EXISTS constraint_probe_pairs (a TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY (a, b))',
  'CREATE TABLE IF NOT EXISTS constraint_probe_checked (id TEXT PRIMARY KEY, n INTEGER, CONSTRAINT constraint_probe_positive CHECK (n > 0))',
  "CREATE TRIGGER IF NOT EXISTS constraint_probe_refuses BEFORE INSERT ON constraint_probe WHEN new.ws = 'closed' BEGIN SELECT RAISE(ABORT, 'PROBE_REFUSED'); END",
];

const d1 = () => env.SHARD_0;

// The probe tables leave the shard as they found it: other files list its tables and triggers.
afterAll(async () => {
  await d1().batch(
    [
      'DROP TRIGGER IF EXISTS constraint_probe_refuses',
      ...['constraint_probe_checked', 'constraint_probe_pairs', 'constraint_probe'].map((t) => `DROP TABLE IF EXISTS ${t}`),
    ].map((q) => d1().prepare(q)),
  );
});
const db = () => dbFor(d1());

/** What D1 throws for `statement` run alone, in a D1 batch, through drizzle and in a drizzle batch: each must parse alike. */
async function failuresOf(statement: string) {
  const caught = (p: Promise<unknown>) =>
    p.then(
      () => expect.unreachable(`${statement} did not fail`),
      (err: unknown) => err,
    );
  return [
    await caught(d1().prepare(statement).run()),
    await caught(d1().batch([d1().prepare('SELECT 1'), d1().prepare(statement)])),
    await caught(db().run(sql.raw(statement))),
    await caught(runBatch(db(), [db().run(sql`SELECT 1`), db().run(sql.raw(statement))])),
  ];
}

describe('constraint failures as D1 reports them', () => {
  beforeAll(async () => {
    for (const statement of SCHEMA) await d1().prepare(statement).run();
    await d1().batch(['DELETE FROM constraint_probe', 'DELETE FROM constraint_probe_pairs'].map((s) => d1().prepare(s)));
    await d1()
      .prepare("INSERT INTO constraint_probe (id, ws, email, note) VALUES ('p1', 'w', 'a@example.com', 'Note'), ('p2', 'w', NULL, NULL)")
      .run();
    await d1().prepare("INSERT INTO constraint_probe_pairs (a, b) VALUES ('x', 'y')").run();
  });

  const cases: [string, string, unknown][] = [
    [
      'a unique index over columns',
      "INSERT INTO constraint_probe (id, ws, email) VALUES ('p3', 'w', 'a@example.com')",
      { kind: 'unique', table: 'constraint_probe', columns: ['ws', 'email'] },
    ],
    ['a primary key', "INSERT INTO constraint_probe (id, ws) VALUES ('p1', 'w')", { kind: 'unique', table: 'constraint_probe', columns: ['id'] }],
    [
      'a composite primary key',
      "INSERT INTO constraint_probe_pairs (a, b) VALUES ('x', 'y')",
      { kind: 'unique', table: 'constraint_probe_pairs', columns: ['a', 'b'] },
    ],
    [
      'a unique index over an expression',
      "INSERT INTO constraint_probe (id, ws, note) VALUES ('p4', 'w', 'NOTE')",
      { kind: 'unique_index', index: 'constraint_probe_note_key' },
    ],
    [
      'a NOT NULL column (a guard)',
      "UPDATE constraint_probe SET ws = CASE WHEN 0 THEN 'w' ELSE NULL END WHERE id = 'p1'",
      { kind: 'not_null', table: 'constraint_probe', column: 'ws' },
    ],
    ['an unnamed CHECK', "INSERT INTO constraint_probe (id, ws, score) VALUES ('p5', 'w', -1)", { kind: 'check', constraint: 'score > 0' }],
    ['a named CHECK', "INSERT INTO constraint_probe_checked (id, n) VALUES ('c1', -1)", { kind: 'check', constraint: 'constraint_probe_positive' }],
    ['a foreign key', "INSERT INTO constraint_probe (id, ws, parent) VALUES ('p6', 'w', 'nobody')", { kind: 'foreign_key' }],
    ['a trigger', "INSERT INTO constraint_probe (id, ws) VALUES ('p7', 'closed')", { kind: 'trigger', message: 'PROBE_REFUSED' }],
  ];

  for (const [name, statement, expected] of cases) {
    it(`parses ${name}, however the statement ran`, async () => {
      for (const err of await failuresOf(statement)) expect(constraintFailure(err)).toEqual(expected);
    });
  }

  it('is null for any other error', async () => {
    const err = await d1()
      .prepare('SELECT * FROM no_such_table')
      .all()
      .catch((e: unknown) => e);
    expect(constraintFailure(err)).toBeNull();
    expect(constraintFailure(new Error('boom'))).toBeNull();
    expect(constraintFailure('UNIQUE constraint failed: t.c')).toBeNull();
  });
});

describe('constraints named from the schema', () => {
  beforeAll(async () => {
    for (const statement of SCHEMA) await d1().prepare(statement).run();
  });

  it('match only their own failure', async () => {
    const [duplicate] = await failuresOf("INSERT INTO constraint_probe (id, ws, email) VALUES ('p3', 'w', 'a@example.com')");
    expect(failedOn(duplicate, uniqueOn(probes.ws, probes.email))).toBe(true);
    expect(failedOn(duplicate, uniqueOn(probes.email, probes.ws))).toBe(true);
    expect(failedOn(duplicate, uniqueOn(probes.id), guardOf(probes.ws))).toBe(false);
    const [pair] = await failuresOf("INSERT INTO constraint_probe_pairs (a, b) VALUES ('x', 'y')");
    expect(failedOn(pair, uniqueOn(pairs.a, pairs.b))).toBe(true);
    const [guard] = await failuresOf("UPDATE constraint_probe SET ws = CASE WHEN 0 THEN 'w' ELSE NULL END WHERE id = 'p1'");
    expect(failedOn(guard, guardOf(probes.ws))).toBe(true);
    expect(failedOn(guard, uniqueOn(probes.ws, probes.email))).toBe(false);
    const [refused] = await failuresOf("INSERT INTO constraint_probe (id, ws) VALUES ('p7', 'closed')");
    expect(failedOn(refused, raisedBy('constraint_probe_refuses', 'PROBE_REFUSED'))).toBe(true);
    expect(failedOn(refused, raisedBy('constraint_probe_refuses', 'OTHER'))).toBe(false);
  });

  it('refuse, where they are named, a key the schema does not declare and a guard that cannot fail', () => {
    expect(() => uniqueOn(probes.note)).toThrow('constraint_probe declares no unique key over (note)');
    expect(() => uniqueOn(probes.ws, contacts.email)).toThrow('one table');
    // @ts-expect-error a column that takes NULL is no guard
    expect(() => guardOf(probes.note)).toThrow('takes NULL');
    expect(uniqueOn(contacts.workspace_id, contacts.email).name).toBe('contacts_workspace_email');
    expect(guardOf(contacts.updated_at).name).toBe('contacts.updated_at');
  });

  it('name the trigger of a closed shard as the control plane raises it', async () => {
    const binding = `SHARD_PROBE_${crypto.randomUUID().slice(0, 8)}`;
    await env.DB.prepare("INSERT INTO shards (binding, state, updated_at) VALUES (?, 'closed', '2026-01-01')").bind(binding).run();
    try {
      const err = await env.DB.prepare('INSERT INTO workspaces (id, shard) VALUES (?, ?)')
        .bind(crypto.randomUUID(), binding)
        .run()
        .catch((e: unknown) => e);
      expect(constraintFailure(err)).toEqual({ kind: 'trigger', message: 'SHARD_CLOSED' });
      expect(failedOn(err, raisedBy('workspaces_closed_shard', 'SHARD_CLOSED'))).toBe(true);
    } finally {
      await env.DB.prepare('DELETE FROM shards WHERE binding = ?').bind(binding).run();
    }
  });
});
