import { env, introspectWorkflow } from 'cloudflare:test';
import { afterEach } from 'vitest';

type Introspector = Awaited<ReturnType<typeof introspectWorkflow>>;
let introspector: Introspector | null = null;

/** Disposes what `timeFlies` set up after each test of the file that imports this. */
export function resetTimeAfterEach() {
  afterEach(async () => {
    await introspector?.dispose();
    introspector = null;
  });
}

/** From here on, the runs' sleeps end at once (a wait of days passes in the test's time), and the named event waits time out. */
export async function timeFlies(opts: { eventTimeouts?: string[] } = {}) {
  introspector = await introspectWorkflow(env.AUTOMATION_RUNS);
  await introspector.modifyAll(async (m) => {
    await m.disableSleeps();
    for (const name of opts.eventTimeouts ?? []) await m.forceEventTimeout({ name });
  });
}
