/// <reference types="vite/client" />
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { readInventory } from '../../src/platform/d1/workspace-moves/inventory';
import { FENCE_PREFIX, fenceTriggers } from '../../src/platform/d1/workspace-moves/triggers';
import { wiring } from '../../src/wiring';
import { controlD1, shardBindings } from '../support/db';

/**
 * Rules held in SQL triggers are invisible from the TypeScript, so each one live on a migrated
 * database is listed in docs/sql-rules.md (module, rule, the migration holding
 * its current text) and explained in its module doc's "Rules held in SQL". The move fence's
 * triggers are the one family no migration creates: a move creates them on the shard it leaves,
 * for every table it moves, and they stay, so which shards hold them depends on the moves run
 * there (by this suite's other files too). Their row names them by pattern; each live one is
 * checked against it and against the shard's moved tables instead of the migrations.
 */
const raw = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([path, text]) => [path.replace('../../', ''), text]));
const docs = raw(import.meta.glob('../../docs/*.md', { query: '?raw', import: 'default', eager: true }) as Record<string, string>);
const migrations = raw(import.meta.glob('../../migrations/*/*.sql', { query: '?raw', import: 'default', eager: true }) as Record<string, string>);
const refunds = (await import('../../src/modules/payments/refunds.ts?raw')).default;

/** `a_{b,c}_{d,e}` as the names it stands for. */
function expand(pattern: string): string[] {
  const group = /\{([^{}]*)\}/.exec(pattern);
  if (!group) return [pattern];
  return group[1].split(',').flatMap((part) => expand(pattern.slice(0, group.index) + part + pattern.slice(group.index + group[0].length)));
}

/** The text under a heading (any level) up to the next heading of the same level or above. */
function section(text: string, heading: string): string | null {
  const match = new RegExp(`^(#+) ${heading}$`, 'm').exec(text);
  if (!match) return null;
  const rest = text.slice(match.index + match[0].length);
  const next = new RegExp(`^#{1,${match[1].length}} `, 'm').exec(rest);
  return next ? rest.slice(0, next.index) : rest;
}

const triggerNames = (text: string) => [...text.matchAll(/`([a-z_{},]+)`/g)].flatMap((m) => expand(m[1]));

type Row = { names: string[]; doc: string; migration: string; cell: string };
const rows: Row[] = section(docs['docs/sql-rules.md'], 'Triggers on the shards')!
  .split('\n')
  .filter((line) => line.startsWith('| `'))
  .map((line) => {
    const [names, module, , migration] = line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim());
    return { names: triggerNames(names), doc: `docs/${/\(([^)]+)\)/.exec(module)![1]}`, migration, cell: names };
  });
const RUN_TIME = 'created by a move';
const index = rows.filter((row) => row.migration !== RUN_TIME);
const fenceRow = rows.find((row) => row.migration === RUN_TIME);
const FENCE = new RegExp(`^${FENCE_PREFIX}([iud])_([A-Za-z_][A-Za-z0-9_]*)$`);

const allTriggers = async (db: D1Database) =>
  (await db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all<{ name: string }>()).results.map((r) => r.name);
/** The triggers the migrations created (a move's fence triggers are checked on their own). */
const liveTriggers = async (db: D1Database) => (await allTriggers(db)).filter((name) => !name.startsWith(FENCE_PREFIX));
const shardDbs = () => shardBindings().map((name) => (env as unknown as Record<string, D1Database>)[name]);

describe('rules held in SQL', () => {
  it('the D1 section lists exactly the triggers live on every shard and on the control plane', async () => {
    const listed = index.flatMap((row) => row.names).sort();
    expect(new Set(listed).size).toBe(listed.length);
    const shards = await Promise.all(shardDbs().map(liveTriggers));
    for (const live of shards) expect(live).toEqual(shards[0]);
    expect(listed).toEqual([...shards[0], ...(await liveTriggers(controlD1()))].sort());
  });

  it("the move fence's triggers are listed by their pattern, and each live one fences a table the shard moves, with its two siblings", async () => {
    expect(fenceRow, `a row of the D1 section marked "${RUN_TIME}"`).toBeDefined();
    expect(fenceRow!.cell).toBe(`\`${FENCE_PREFIX}{i,u,d}_<table>\``);
    expect(section(docs[fenceRow!.doc], 'Rules held in SQL')).toContain(fenceRow!.cell);
    const notMoved = new Set(wiring.notMoved.keys());
    // A move off the first shard creates them as here (IF NOT EXISTS: a second time changes nothing).
    const first = shardDbs()[0];
    for (let i = 0; i < 2; i++) await first.batch((await readInventory(first, notMoved)).moved.flatMap(fenceTriggers).map((q) => first.prepare(q)));
    expect((await allTriggers(first)).filter((name) => name.startsWith(FENCE_PREFIX)).length).toBe(
      3 * (await readInventory(first, notMoved)).moved.length,
    );
    for (const db of shardDbs()) {
      const fences = (await allTriggers(db)).filter((name) => name.startsWith(FENCE_PREFIX));
      const moved = new Set((await readInventory(db, notMoved)).moved.map((t) => t.name));
      const tables = new Set<string>();
      for (const name of fences) {
        const [, , table] = FENCE.exec(name) ?? [];
        expect(moved.has(table), name).toBe(true);
        tables.add(table);
      }
      for (const table of tables) for (const kind of 'iud') expect(fences).toContain(`${FENCE_PREFIX}${kind}_${table}`);
    }
  });

  it("each trigger is explained in its module doc's Rules held in SQL", () => {
    for (const row of index) {
      const rules = section(docs[row.doc] ?? '', 'Rules held in SQL');
      expect(rules, `${row.doc} has a "Rules held in SQL" section`).not.toBeNull();
      const explained = triggerNames(rules!);
      for (const name of row.names) expect(explained, `${name} in ${row.doc}`).toContain(name);
    }
  });

  it('each row names the migration that holds the current text of its triggers', () => {
    for (const row of index) {
      const [folder, number] = row.migration.startsWith('control ') ? ['control', row.migration.slice('control '.length)] : ['data', row.migration];
      const files = Object.keys(migrations)
        .filter((path) => path.startsWith(`migrations/${folder}/`))
        .sort();
      for (const name of row.names) {
        const creating = files.filter((path) => migrations[path].includes(`CREATE TRIGGER \`${name}\``));
        expect(creating.at(-1), name).toMatch(new RegExp(`^migrations/${folder}/${number}_`));
      }
    }
  });

  it('the refund ledger rule is findable from the payments doc and from the code relying on it', () => {
    expect(section(docs['docs/payments.md'], 'Rules held in SQL')).toContain('`payment_entries_refund_applies`');
    expect(refunds).toContain('payment_entries_refund_applies');
  });
});
