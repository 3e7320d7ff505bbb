import { env } from 'cloudflare:workers';

/**
 * Direct database access for tests. The control plane is `env.DB`; a
 * workspace's records live in its shard. Record ids are unique across shards,
 * so a statement by id can simply run on every shard: only the one holding
 * the row sees it.
 */
const bindings = env as unknown as Record<string, D1Database>;

export const shardBindings = (): string[] =>
  Object.keys(bindings)
    .filter((k) => /^SHARD_\d+$/.test(k))
    .sort();

export const controlD1 = (): D1Database => bindings.DB;

/** The D1 database holding a workspace's data. */
export async function shardOf(workspaceId: string): Promise<D1Database> {
  const row = await controlD1().prepare('SELECT shard FROM workspaces WHERE id = ?').bind(workspaceId).first<{ shard: string }>();
  if (!row) throw new Error(`no workspace ${workspaceId}`);
  return bindings[row.shard];
}

/** Rows of a query run on every shard, shard by shard. */
export async function rowsOnShards<T = any>(sql: string, ...binds: unknown[]): Promise<T[]> {
  const parts = await Promise.all(
    shardBindings().map((name) =>
      bindings[name]
        .prepare(sql)
        .bind(...binds)
        .all<T>(),
    ),
  );
  return parts.flatMap((p) => p.results);
}

/** The first row of a query by id, wherever it lives. */
export async function rowOnShards<T = any>(sql: string, ...binds: unknown[]): Promise<T | null> {
  return (await rowsOnShards<T>(sql, ...binds))[0] ?? null;
}

/** A write by id on every shard (only the shard holding the row changes). */
export async function runOnShards(sql: string, ...binds: unknown[]): Promise<void> {
  await Promise.all(
    shardBindings().map((name) =>
      bindings[name]
        .prepare(sql)
        .bind(...binds)
        .run(),
    ),
  );
}

/** Rows of a query on the shard of one workspace (aggregates such as count(*) need the one shard). */
export async function rowsIn<T = any>(workspaceId: string, sql: string, ...binds: unknown[]): Promise<T[]> {
  return (
    await (
      await shardOf(workspaceId)
    )
      .prepare(sql)
      .bind(...binds)
      .all<T>()
  ).results;
}
