import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that need a runtime of their own: they read whole shards (sizes, every table, every row of
 * a move), drive a shard's sweeps through bounded passes, or count every outgoing fetch, so other
 * files' rows and background work would change what they measure.
 */
const ISOLATED = [
  'test/platform/fleet.test.ts',
  'test/platform/moves.test.ts',
  'test/quality/fuzz.test.ts',
  'test/scoring/decay.test.ts',
  'test/webhooks/batch.test.ts',
];

export default defineConfig(async () => {
  // The API reference viewer is a static asset copied from node_modules (wrangler.toml `[build]` does the same for wrangler).
  const copy = spawnSync(process.execPath, ['scripts/docs-assets.mjs'], { stdio: 'inherit' });
  if (copy.status !== 0) throw new Error('scripts/docs-assets.mjs failed');
  // The patches `npm ci` applies (postinstall), in case dependencies were installed without scripts; one already applied is left as it is.
  const patched = spawnSync(process.execPath, ['node_modules/patch-package/index.js', '--error-on-fail'], { stdio: 'ignore' });
  if (patched.status !== 0)
    throw new Error('patch-package failed: a patch in patches/ no longer applies (npx patch-package --error-on-fail says which)');
  const [control, data] = await Promise.all([readD1Migrations('./migrations/control'), readD1Migrations('./migrations/data')]);
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          bindings: {
            ADMIN_TOKEN: 'test-admin-token',
            // Email: tracking links are signed; Resend webhooks are verified with this Svix secret (test/email).
            TRACKING_SECRET: 'test-tracking-secret',
            RESEND_WEBHOOK_SECRET: 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3',
            TEST_MIGRATIONS_CONTROL: control,
            TEST_MIGRATIONS_DATA: data,
            ALLOW_UNSAFE_WEBHOOK_HOSTS: '',
            WHATSAPP_APP_SECRET: 'test-whatsapp-app-secret',
            WHATSAPP_VERIFY_TOKEN: 'test-whatsapp-verify-token',
            // Property tests: FUZZ_SEED (+ FUZZ_PATH) replays a run, FUZZ_RUNS deepens one; CI runs a fixed seed, local runs a random one.
            FUZZ_SEED: process.env.FUZZ_SEED ?? '',
            FUZZ_PATH: process.env.FUZZ_PATH ?? '',
            FUZZ_RUNS: process.env.FUZZ_RUNS ?? '',
            CI: process.env.CI ?? '',
            // `off`: the suite runs as a fresh Worker instance would serve every request (`npm run test:cold`).
            INSTANCE_CACHES: process.env.INSTANCE_CACHES ?? '',
            // An error a /v1 operation answers without declaring it fails the test that reached it.
            UNDECLARED_ERRORS: 'fail',
          },
        },
      }),
    ],
    test: {
      // Test files wait on workerd far more than they compute: two at a time even on two cores (the
      // default, one fewer than the cores, would run one file at a time there and double the run).
      maxWorkers: Math.max(2, availableParallelism() - 1),
      projects: [
        // Each file gets fresh databases and modules only where it needs them: starting a runtime per
        // file costs seconds, so the others share one per worker (every test makes its own workspaces).
        { extends: true, test: { name: 'shared', isolate: false, exclude: [...ISOLATED, ...configDefaults.exclude] } },
        { extends: true, test: { name: 'isolated', isolate: true, include: ISOLATED } },
      ],
      setupFiles: ['./test/support/apply-migrations.ts'],
      // No test waits on the clock: big-data and background tests wait on progress (`eventually`), so
      // these bounds only stop a test that hangs, on however busy a machine.
      testTimeout: 300_000,
      hookTimeout: 300_000,
    },
  };
});
