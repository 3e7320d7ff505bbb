import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';

/**
 * The name of an index `table` declares, for a statement that names the index it walks
 * (`INDEXED BY`): a name the schema does not declare throws where it is named, when its module
 * loads, instead of failing the statement (SQLite refuses an `INDEXED BY` naming no index).
 */
export function declaredIndex(table: SQLiteTable, name: string): string {
  const config = getTableConfig(table);
  if (!config.indexes.some((i) => i.config.name === name)) throw new Error(`declaredIndex: ${config.name} declares no index ${name}`);
  return name;
}
