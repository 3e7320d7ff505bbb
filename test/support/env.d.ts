import type { Bindings } from '../../src/env';

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: import('cloudflare:test').D1Migration[];
    }
  }
}
