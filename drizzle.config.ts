import { defineConfig } from 'drizzle-kit';

/**
 * Two schemas, two migration folders: the control plane (workspaces, API keys,
 * the shard map, the platform suppression list) in `DB`, and the workspace data
 * applied to every data database (`SHARD_*`). `npm run db:generate` writes both.
 */
const target = process.env.DRIZZLE_TARGET === 'control' ? 'control' : 'data';

export default defineConfig(
  target === 'control'
    ? { dialect: 'sqlite', schema: ['./src/platform/control-schema.ts', './src/modules/**/control-schema.ts'], out: './migrations/control' }
    : { dialect: 'sqlite', schema: ['./src/platform/schema.ts', './src/modules/**/schema.ts'], out: './migrations/data' },
);
