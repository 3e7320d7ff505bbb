import { describe, expect, it } from 'vitest';

const sources = import.meta.glob('../../src/**/*.ts', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

/** The module a source file belongs to (`platform`, `admin`, ... for the folders around the modules). */
const ownerOf = (path: string) => path.match(/src\/modules\/([^/]+)\//)?.[1] ?? path.match(/src\/([^/.]+)/)![1];

/** Every table declared in a schema file, with the module that declares it. */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [path, text] of Object.entries(sources)) {
    if (!/schema\.ts$/.test(path)) continue;
    for (const m of text.matchAll(/sqliteTable\(\s*'([a-z_0-9]+)'/g)) owners.set(m[1], ownerOf(path));
  }
  return owners;
}

/** The SQL a file writes: its sql`...` templates and sql.raw('...') texts. */
const sqlTextOf = (text: string) =>
  [...text.matchAll(/sql`([^`]*)`/g), ...text.matchAll(/sql\.raw\((['"`])(.*?)\1/g)].map((m) => m[m.length - 1]).join('\n');

/** Strings that equal a table's name without naming it: the data export's kinds are named after the records they hold. */
const NOT_TABLES: Record<string, RegExp> = { 'contacts/subject-copy.ts': /export const EXPORT_KIND_NAMES = \[[^\]]*\]/ };

/** Where SQL names a table (`FROM t`, `JOIN t`, `INTO t`, `UPDATE t`), or a string holds exactly a table's name (`'contact_tag_links'`). */
function namedIn(path: string, text: string, table: string) {
  if (new RegExp(`\\b(from|join|into|update|table)\\s+"?${table}"?(\\s|$|\\))`, 'i').test(sqlTextOf(text))) return true;
  const exempt = Object.entries(NOT_TABLES).find(([file]) => path.endsWith(file))?.[1];
  return table.includes('_') && new RegExp(`['"]${table}['"]`).test(exempt ? text.replace(exempt, '') : text);
}

describe('table boundaries', () => {
  it('finds the schema files', () => {
    expect(tableOwners().size).toBeGreaterThan(40);
  });

  it('no module names a table another module (or the platform) declares: it calls that module instead', () => {
    const owners = tableOwners();
    const offenders: string[] = [];
    for (const [path, text] of Object.entries(sources)) {
      const me = ownerOf(path);
      for (const [table, owner] of owners) {
        if (owner !== me && namedIn(path, text, table)) offenders.push(`${path.replace(/^.*src\//, 'src/')} -> ${owner}:${table}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
