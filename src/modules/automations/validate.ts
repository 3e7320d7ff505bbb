import type { ServiceContext } from '../../platform/context';
import type { Statement } from '../../platform/d1/db';
import { ApiError } from '../../platform/errors';
import { checkContactFilter, ContactWrite } from '../contacts';
import { compileForWorkspace } from '../content';
import { selectStage } from '../pipelines';
import { readSender } from '../sender-profiles';
import { selectEndpoint } from '../webhooks';
import { selectTemplate } from '../whatsapp';
import {
  type BranchStep,
  checkExitOn,
  checkSendWindow,
  checkSteps,
  checkTrigger,
  type Definition,
  type ReEnrollment,
  type StepCheck,
} from './definition';
import { AutomationErrors } from './errors';

/** The definition fields of a create or a PATCH, as the request schema let them through. */
export type DefinitionInput = {
  trigger: Record<string, unknown>;
  steps: unknown[];
  exit_on?: unknown[];
  re_enrollment?: ReEnrollment;
  send_window?: Record<string, unknown> | null;
};

/** A contact filter's problem, reported at the path it sits at. */
function checkFilter(filter: Record<string, unknown>, path: string, workspaceId: string): void {
  try {
    checkContactFilter(filter, workspaceId);
  } catch (err) {
    if (err instanceof ApiError) throw AutomationErrors.invalidDefinition({ path, problem: err.message });
    throw err;
  }
}

/**
 * The whole definition checked against the workspace: the shape (./definition.ts), every filter in the
 * contact grammar, every email's content compiled, every contact update in the contact PATCH rules, and
 * every referenced sender profile, template, stage and endpoint the workspace's own.
 */
export async function checkedDefinition(ctx: ServiceContext, input: DefinitionInput): Promise<Definition> {
  const trigger = checkTrigger(input.trigger);
  if (trigger.filter) checkFilter(trigger.filter, 'trigger.filter', ctx.ws.id);
  const steps = checkSteps(input.steps, trigger);
  const definition: Definition = {
    trigger,
    steps: input.steps as Definition['steps'],
    exit_on: checkExitOn(input.exit_on ?? []),
    re_enrollment: input.re_enrollment ?? 'never',
    send_window: checkSendWindow(input.send_window ?? null),
  };
  for (const { path, step } of steps) {
    const cond = step.type === 'branch' ? (step as BranchStep).if : null;
    if (cond && 'contact' in cond) checkFilter(cond.contact, `${path}.if.contact`, ctx.ws.id);
    if (step.type === 'update_contact') {
      const parsed = ContactWrite.safeParse(step.fields);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw AutomationErrors.invalidDefinition({ path: [`${path}.fields`, ...issue.path].join('.'), problem: issue.message });
      }
    }
    if (step.type === 'send_email') await compileForWorkspace(ctx.db, ctx.ws.id, step.content);
  }
  await checkReferences(ctx, steps);
  return definition;
}

/** One batch of reads for the referenced objects (the sender profiles beside it); the first step naming a missing one is the answer. */
async function checkReferences(ctx: ServiceContext, steps: StepCheck[]): Promise<void> {
  const lookups: { path: string; what: string; read: Statement | (() => Promise<unknown[]>) }[] = [];
  for (const { path, step } of steps) {
    const id = (field: string) => String(step[field]).toLowerCase();
    if (step.type === 'send_email' && step.sender_profile_id !== undefined)
      lookups.push({ path: `${path}.sender_profile_id`, what: 'sender profile', read: () => readSender(ctx.db, ctx.ws.id, id('sender_profile_id')) });
    if (step.type === 'send_whatsapp')
      lookups.push({ path: `${path}.template_id`, what: 'WhatsApp template', read: selectTemplate(ctx.db, ctx.ws.id, id('template_id')) });
    if (step.type === 'move_deal')
      lookups.push({ path: `${path}.stage_id`, what: 'pipeline stage', read: selectStage(ctx.db, ctx.ws.id, id('stage_id')) });
    if (step.type === 'webhook')
      lookups.push({ path: `${path}.endpoint_id`, what: 'webhook endpoint', read: selectEndpoint(ctx, id('endpoint_id')) as unknown as Statement });
  }
  const batched = lookups.filter((l) => typeof l.read !== 'function').map((l) => l.read as Statement);
  const [batchRows, ...called] = await Promise.all([
    batched.length ? ctx.db.batch(batched as [Statement, ...Statement[]]) : Promise.resolve([]),
    ...lookups.filter((l) => typeof l.read === 'function').map((l) => (l.read as () => Promise<unknown[]>)()),
  ]);
  const rows = [...(batchRows as unknown[][])];
  const found = lookups.map((l) => (typeof l.read === 'function' ? called.shift() : rows.shift()) as unknown[]);
  const missing = lookups.findIndex((_, i) => found[i].length === 0);
  if (missing >= 0)
    throw AutomationErrors.invalidDefinition({ path: lookups[missing].path, problem: `names no ${lookups[missing].what} of this workspace` });
}
