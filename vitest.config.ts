import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

export default defineConfig(async () => {
  const [control, data] = await Promise.all([readD1Migrations('./migrations/control'), readD1Migrations('./migrations/data')]);
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          bindings: {
            ADMIN_TOKEN: 'test-admin-token',
            TEST_MIGRATIONS_CONTROL: control,
            TEST_MIGRATIONS_DATA: data,
            ALLOW_UNSAFE_WEBHOOK_HOSTS: '',
            // Property tests: FUZZ_SEED (+ FUZZ_PATH) replays a run, FUZZ_RUNS deepens one; CI runs a fixed seed, local runs a random one.
            FUZZ_SEED: process.env.FUZZ_SEED ?? '',
            FUZZ_PATH: process.env.FUZZ_PATH ?? '',
            FUZZ_RUNS: process.env.FUZZ_RUNS ?? '',
            CI: process.env.CI ?? '',
            // `npm run openapi:write`: the document test writes ./openapi.json instead of comparing it.
            OPENAPI_WRITE: process.env.OPENAPI_WRITE ?? '',
          },
          serviceBindings: {
            // Runs in Node: the only way a test inside workerd writes a file of the repo (the committed OpenAPI snapshot).
            OPENAPI_SNAPSHOT: async (request: Request) => {
              // The config runs in Node; the project's types are the Workers ones, so fs is reached untyped.
              const { writeFileSync } = (await import('node:' + 'fs')) as { writeFileSync: (path: string, text: string) => void };
              writeFileSync('./openapi.json', await request.text());
              return new Response(null, { status: 204 });
            },
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
