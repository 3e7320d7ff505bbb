import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

export default defineConfig(async () => {
  const migrations = await readD1Migrations('./migrations');
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          bindings: {
            ADMIN_TOKEN: 'test-admin-token',
            TEST_MIGRATIONS: migrations,
            ALLOW_UNSAFE_WEBHOOK_HOSTS: '',
          },
        },
      }),
    ],
    test: {
      setupFiles: ['./test/support/apply-migrations.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  };
});
