import type { Bindings } from '../../env';

/** What an instance carries: ids only; each step resolves the workspace's shard when it runs (a moved workspace is found). */
export type RunParams = { workspace_id: string; enrollment_id: string };

/** The event type a `wait_for` step waits on: one per step, so an event can only reach the wait it was sent to. */
export const waitEventType = (stepId: string) => `step-${stepId}`;

/** Workflows creates at most this many instances per `createBatch` call. */
const CREATE_BATCH_MAX = 100;

/**
 * Starts the instances of enrollments just written. An id the engine already holds (a retried message, the
 * sweep meeting a start that did succeed) is refused by the engine itself, and refusal is what we want: the
 * batch then falls back to one create per id so the others still start. What fails otherwise stays unstarted
 * for the start sweep.
 */
export async function startRuns(env: Bindings, runs: RunParams[]): Promise<void> {
  for (let i = 0; i < runs.length; i += CREATE_BATCH_MAX) {
    const part = runs.slice(i, i + CREATE_BATCH_MAX);
    try {
      await env.AUTOMATION_RUNS.createBatch(part.map((params) => ({ id: params.enrollment_id, params })));
    } catch {
      await Promise.all(part.map((params) => env.AUTOMATION_RUNS.create({ id: params.enrollment_id, params }).catch(() => undefined)));
    }
  }
}

/** Stops the instances of enrollments that ended outside them (cancelled, exited); an instance left running stops at its next step anyway. */
export async function stopRuns(env: Bindings, enrollmentIds: string[]): Promise<void> {
  await Promise.all(
    enrollmentIds.map(async (id) => {
      try {
        const instance = await env.AUTOMATION_RUNS.get(id);
        const { status } = await instance.status();
        if (status !== 'complete' && status !== 'errored' && status !== 'terminated') await instance.terminate();
      } catch {
        // Not started yet, or already finished: nothing runs.
      }
    }),
  );
}

/** Resumes the instance waiting in `stepId` with the event that ended its wait. */
export async function resumeRun(env: Bindings, enrollmentId: string, stepId: string, eventId: string): Promise<void> {
  const instance = await env.AUTOMATION_RUNS.get(enrollmentId);
  await instance.sendEvent({ type: waitEventType(stepId), payload: { event_id: eventId } });
}
