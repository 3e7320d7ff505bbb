import { env } from 'cloudflare:workers';
import { configureInstanceCaches } from '../../src/platform/instance-cache';
import { shardBindings } from './db';

configureInstanceCaches(env.INSTANCE_CACHES);

type Migration = { name: string; queries: string[] };

/**
 * The migrations a database lacks in one batch, recorded in `d1_migrations` as `wrangler d1
 * migrations apply` records them: one write per database (all three at once) instead of one per
 * migration keeps the set-up of each test file out of the run time.
 */
async function migrate(db: D1Database, migrations: Migration[]): Promise<void> {
  await db
    .prepare(
      'CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)',
    )
    .run();
  const applied = new Set((await db.prepare('SELECT name FROM d1_migrations').all<{ name: string }>()).results.map((r) => r.name));
  const record = db.prepare('INSERT INTO d1_migrations (name) VALUES (?)');
  const statements = migrations.filter((m) => !applied.has(m.name)).flatMap((m) => [...m.queries.map((q) => db.prepare(q)), record.bind(m.name)]);
  if (statements.length) await db.batch(statements);
}

// The control plane gets its schema, every shard the data schema: as `npm run db:migrate:local` does.
const databases = env as unknown as Record<string, D1Database>;
await Promise.all([
  migrate(env.DB, env.TEST_MIGRATIONS_CONTROL),
  ...shardBindings().map((shard) => migrate(databases[shard], env.TEST_MIGRATIONS_DATA)),
]);
