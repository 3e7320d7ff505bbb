import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { configureInstanceCaches } from '../../src/platform/instance-cache';
import { shardBindings } from './db';

configureInstanceCaches(env.INSTANCE_CACHES);

// The control plane gets its schema, every shard the data schema: as `npm run db:migrate:local` does.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS_CONTROL);
for (const shard of shardBindings()) await applyD1Migrations((env as unknown as Record<string, D1Database>)[shard], env.TEST_MIGRATIONS_DATA);
