import { Column, entityKind, is, SQL, sql, Table } from 'drizzle-orm';
import { SQLiteColumn, SQLiteTable, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';

// patches/drizzle-orm+0.45.4.patch (applied by patch-package after install) memoizes drizzle's entity-kind look-up; these pin that it is applied and answers as before.
describe('drizzle entity checks (patched for speed)', () => {
  const contacts = sqliteTable('entity_probe', { id: text('id') });

  it('runs the memoized look-up', () => {
    expect(is.toString()).toContain('entityKindsOf');
  });

  it('answers instanceof checks, kind matches across copies and misses as drizzle does', () => {
    expect(is(contacts, SQLiteTable)).toBe(true);
    expect(is(contacts, Table)).toBe(true);
    expect(is(contacts.id, Column)).toBe(true);
    expect(is(contacts.id, SQLiteColumn)).toBe(true);
    expect(is(sql`1`, SQL)).toBe(true);
    expect(is(sql`1`, Column)).toBe(false);
    expect(is(contacts.id, SQL)).toBe(false);
    expect(is(null, SQL)).toBe(false);
    expect(is('text', SQL)).toBe(false);
    // A class from another copy of drizzle carries the same kind without sharing the prototype chain.
    // biome-ignore lint/complexity/noStaticOnlyClass: drizzle recognises its classes by a static entity kind; the test needs exactly that shape.
    class ForeignSql {
      static readonly [entityKind] = 'SQL';
    }
    class ForeignChild extends ForeignSql {}
    for (let i = 0; i < 3; i++) {
      expect(is(new ForeignSql(), SQL)).toBe(true);
      expect(is(new ForeignChild(), SQL)).toBe(true);
      expect(is(new ForeignSql(), Column)).toBe(false);
    }
  });

  it('still refuses a type that is not a drizzle entity', () => {
    class Plain {}
    expect(() => is(sql`1`, Plain as never)).toThrow(/doesn't look like a Drizzle entity/);
  });
});
