import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { ApiError } from '../../platform/errors';
import { rawAll } from '../../platform/d1/raw-query';
import { contactMatches, contactProjectionOf, setConsent } from '../contacts';

type TokenRow = { contact_id: string | null; definition: string; step_id: string };

/** The send step a token came from, its contact and the step's sender profile. */
const stepOfToken = (ctx: ServiceContext, token: string) =>
  rawAll<TokenRow>(
    ctx.db,
    sql`SELECT e.contact_id, v.definition, r.step_id FROM automation_step_runs r
      JOIN automation_enrollments e ON e.id = r.enrollment_id
      JOIN automation_versions v ON v.automation_id = e.automation_id AND v.version = e.automation_version
      WHERE r.workspace_id = ${ctx.ws.id} AND r.unsubscribe_token = ${token}`,
  );

/** The sender profile the step names, searched through the step tree. */
function senderOf(definition: string, stepId: string): string | null {
  const find = (steps: Record<string, unknown>[]): Record<string, unknown> | undefined => {
    for (const s of steps) {
      if (s.id === stepId) return s;
      const inner = find([...((s.then as []) ?? []), ...((s.else as []) ?? [])]);
      if (inner) return inner;
    }
    return undefined;
  };
  const step = find(JSON.parse(definition).steps);
  return typeof step?.sender_profile_id === 'string' ? step.sender_profile_id : null;
}

/** What an automation email's unsubscribe token stops (the page names it), or null for no such token (an erased contact's included). */
export async function automationOfToken(ctx: ServiceContext, token: string) {
  const [row] = await stepOfToken(ctx, token);
  if (!row?.contact_id) return null;
  const [contact] = await rawAll<{ projection: string | null; subscribed: number }>(
    ctx.db,
    sql`SELECT ${contactProjectionOf(ctx.ws.id, row.contact_id)} AS projection, ${contactMatches(ctx.ws.id, row.contact_id, { email_subscribed: true })} AS subscribed`,
  );
  const projection = contact?.projection ? JSON.parse(contact.projection) : null;
  return {
    name: 'marketing email',
    senderProfileId: senderOf(row.definition, row.step_id),
    email: projection?.email ?? null,
    unsubscribed: !contact?.subscribed,
  };
}

/** The one-click unsubscribe of an automation email: the contact's email consent becomes `unsubscribed`, as a campaign's does. */
export async function unsubscribeAutomationRecipient(ctx: ServiceContext, token: string): Promise<{ name: string } | null> {
  const [row] = await stepOfToken(ctx, token);
  if (!row?.contact_id) return null;
  await setConsent(ctx, row.contact_id, 'email', {
    state: 'unsubscribed',
    source: 'automation_unsubscribe',
    evidence: { step_id: row.step_id },
  }).catch((err) => {
    // A complaint on record keeps consent sticky; the unsubscribe still holds.
    if (!(err instanceof ApiError && err.status === 409)) throw err;
  });
  return { name: `marketing email from ${ctx.ws.name}` };
}
