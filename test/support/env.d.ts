import type { Bindings } from '../../src/env';

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      DB: D1Database;
      SHARD_0: D1Database;
      SHARD_1: D1Database;
      TEST_MIGRATIONS_CONTROL: import('cloudflare:test').D1Migration[];
      TEST_MIGRATIONS_DATA: import('cloudflare:test').D1Migration[];
    }
  }
}

declare module '*?raw' {
  const text: string;
  export default text;
}
