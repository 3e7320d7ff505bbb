import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from 'cloudflare:workers';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { runAction } from './actions';
import type { BranchStep, Step } from './definition';
import { durationMs, waitMs } from './durations';
import { endEnrollment } from './enrollments';
import { branchTaken, waitUntilInstant } from './conditions';
import { publishStepEvents, recordStep, runContext, type RunPlan, startPlan, type StepOutcome, stillActive } from './run-state';
import { waitEventType, type RunParams } from './runs';
import { nextOpening } from './send-window';

/** A step's work retried by the engine on a transient failure (D1 or a provider unavailable), then the enrollment fails. */
const RETRIED: WorkflowStepConfig = { retries: { limit: 6, delay: '2 seconds', backoff: 'exponential' }, timeout: '2 minutes' };

/** Steps whose run is a send: a send window holds them until it opens. */
const SENDS = new Set(['send_email', 'send_whatsapp']);

type Flow = 'next' | 'end' | 'stop';

/** A step that failed for good (its request refused): the enrollment ends `failed` with this reason. */
class StepFailed extends Error {}

/**
 * One enrollment's run: a Workflows instance per enrollment (its id the enrollment id). Each step is one or
 * more `step.do` calls named after the step's id (unique in the tree, each run once), so the engine replays
 * a finished step from its stored result and never does its work twice; waits are `step.sleepUntil` and
 * `step.waitForEvent`, held by the engine however long. Every `step.do` resolves the workspace again and
 * first checks the enrollment still runs: a cancel, an exit or an erasure stops it before its next step.
 */
export class AutomationRun extends WorkflowEntrypoint<Bindings, RunParams> {
  override async run(event: WorkflowEvent<RunParams>, step: WorkflowStep): Promise<void> {
    const { workspace_id: workspaceId, enrollment_id: enrollmentId } = event.payload;
    // The plan is kept by the engine as JSON text: its definition holds filters of any shape.
    const stored = await step.do('start', RETRIED, async () =>
      JSON.stringify(await startPlan(await runContext(this.env, workspaceId), enrollmentId)),
    );
    const plan = JSON.parse(stored) as RunPlan | null;
    if (!plan) return;
    const run = new EnrollmentRun(this.env, step, workspaceId, enrollmentId, plan);
    try {
      const flow = await run.steps(plan.definition.steps);
      if (flow !== 'stop') await run.end('completed', null);
    } catch (err) {
      // Retries spent on one step: the enrollment fails, and says where.
      const reason = err instanceof Error ? err.message.slice(0, 500) : String(err);
      await run.end('failed', reason);
    }
  }
}

class EnrollmentRun {
  /** `wait_for` outcomes by step id, for `branch` steps that read them. */
  private readonly received = new Map<string, boolean>();

  constructor(
    private readonly env: Bindings,
    private readonly step: WorkflowStep,
    private readonly workspaceId: string,
    private readonly enrollmentId: string,
    private readonly plan: RunPlan,
  ) {}

  /** Runs `body` as a step of the engine with the workspace's context, once the enrollment is known to be still running. */
  private once<T extends Rpc.Serializable<T>>(name: string, body: (ctx: ServiceContext) => Promise<T>): Promise<T | 'stopped'> {
    return this.step.do(name, RETRIED, async () => {
      const ctx = await runContext(this.env, this.workspaceId);
      if ((await stillActive(ctx, this.enrollmentId)).length === 0) return 'stopped' as const;
      const answer = await body(ctx);
      await publishStepEvents(this.env, ctx);
      return answer;
    });
  }

  async end(status: 'completed' | 'failed', reason: string | null): Promise<void> {
    await this.step.do(`end:${status}`, RETRIED, async () => {
      const ctx = await runContext(this.env, this.workspaceId);
      await endEnrollment(ctx, this.enrollmentId, status, status === 'failed' ? reason : null);
      await publishStepEvents(this.env, ctx);
      return null;
    });
  }

  async steps(list: Step[]): Promise<Flow> {
    for (const s of list) {
      const flow = await this.run(s);
      if (flow !== 'next') return flow;
    }
    return 'next';
  }

  private record(s: Step, outcome: StepOutcome, waiting?: { event?: string }) {
    return this.once(`${s.id}:record:${outcome.status}`, async (ctx) => {
      await recordStep(ctx, this.enrollmentId, s, outcome, waiting);
      return outcome.status;
    });
  }

  private async run(s: Step): Promise<Flow> {
    switch (s.type) {
      case 'end': {
        const done = await this.record(s, { status: 'completed' });
        return done === 'stopped' ? 'stop' : 'end';
      }
      case 'wait':
        return this.wait(s);
      case 'wait_for':
        return this.waitFor(s);
      case 'branch': {
        const arm = await this.once(s.id, async (ctx) => {
          const taken = await branchTaken(ctx, this.plan, s as BranchStep, this.received);
          await recordStep(ctx, this.enrollmentId, s, { status: 'completed', result: { branch: taken } });
          return taken;
        });
        if (arm === 'stopped') return 'stop';
        return this.steps((s as BranchStep)[arm]);
      }
      default: {
        if (SENDS.has(s.type) && this.plan.definition.send_window && (await this.holdForWindow(s)) === 'stop') return 'stop';
        const outcome = await this.once(s.id, async (ctx) => {
          const done = await runAction({ env: this.env, ctx, plan: this.plan, enrollmentId: this.enrollmentId, step: s });
          await recordStep(ctx, this.enrollmentId, s, done);
          return { status: done.status, reason: done.reason ?? null };
        });
        if (outcome === 'stopped') return 'stop';
        if (outcome.status === 'failed') throw new StepFailed(`${s.id}: ${outcome.reason ?? 'failed'}`);
        return 'next';
      }
    }
  }

  /** A send reached outside the window waits, recorded as waiting with reason `send_window`, until it opens. */
  private async holdForWindow(s: Step): Promise<Flow> {
    const window = this.plan.definition.send_window!;
    const opensAt = await this.once(`${s.id}:window`, async (ctx) => {
      const at = nextOpening(window, this.plan.timezone, Date.now());
      if (at > Date.now())
        await recordStep(ctx, this.enrollmentId, s, { status: 'waiting', reason: 'send_window', result: { until: new Date(at).toISOString() } });
      return at;
    });
    if (opensAt === 'stopped') return 'stop';
    if (opensAt > Date.now()) await this.step.sleepUntil(`${s.id}:window-sleep`, opensAt);
    return 'next';
  }

  private async wait(s: Step): Promise<Flow> {
    const until = await this.once(`${s.id}:begin`, async (ctx) => {
      const at =
        s.duration !== undefined
          ? Date.now() + waitMs(s.duration)!
          : await waitUntilInstant(ctx, this.plan, this.enrollmentId, s.until as string, durationMs(s.offset ?? 'PT0S') ?? 0);
      if (at === null) {
        await recordStep(ctx, this.enrollmentId, s, { status: 'skipped', reason: 'instant_missing' });
        return null;
      }
      await recordStep(ctx, this.enrollmentId, s, { status: 'waiting', result: { until: new Date(at).toISOString() } });
      return at;
    });
    if (until === 'stopped') return 'stop';
    if (until === null) return 'next';
    if (until > Date.now()) await this.step.sleepUntil(`${s.id}:sleep`, until);
    const done = await this.record(s, { status: 'completed', result: { until: new Date(until).toISOString() } });
    return done === 'stopped' ? 'stop' : 'next';
  }

  /**
   * Marks the enrollment waiting for the event type (so the fan-out sends it events of that type from now on),
   * then waits for one on this step's own event type, or the timeout.
   */
  private async waitFor(s: Step): Promise<Flow> {
    const begun = await this.once(`${s.id}:begin`, async (ctx) => {
      await recordStep(ctx, this.enrollmentId, s, { status: 'waiting' }, { event: s.event as string });
      return true;
    });
    if (begun === 'stopped') return 'stop';
    let eventId: string | null = null;
    try {
      const got = await this.step.waitForEvent<{ event_id: string }>(`${s.id}:event`, { type: waitEventType(s.id), timeout: waitMs(s.timeout)! });
      eventId = got.payload.event_id;
    } catch {
      // The timeout: the wait ends without the event.
    }
    this.received.set(s.id, eventId !== null);
    const result = eventId ? { received: true, event_id: eventId } : { received: false };
    const done = await this.record(s, { status: 'completed', result });
    return done === 'stopped' ? 'stop' : 'next';
  }
}
