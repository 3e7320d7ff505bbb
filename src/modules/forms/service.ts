import type { ServiceContext } from '../../platform/context';
import { nowIso, runBatch } from '../../platform/db';
import { uuidv7 } from '../../platform/ids';
import { resolveContactReference } from '../contacts/resolve';
import { formSubmissions } from './schema';

export type SubmissionInput = {
  form_name: string;
  origin: string;
  fields: Record<string, unknown>;
  contact?: { email?: string; phone?: string; name?: string };
};

/**
 * Stores a form submission and fires `form.submitted` in the same batch. The
 * submitter becomes a contact through the shared contact resolution (source
 * `form`); without a contact the event still fires with `contact_id: null`.
 */
export async function submitForm(ctx: ServiceContext, formId: string, input: SubmissionInput) {
  const contact = input.contact
    ? await resolveContactReference(ctx, input.contact, { missingMessage: 'contact needs an email or a phone', source: 'form' })
    : null;
  const row = {
    id: uuidv7(),
    workspace_id: ctx.ws.id,
    form_id: formId,
    form_name: input.form_name,
    origin: input.origin,
    fields: input.fields,
    contact_id: contact?.id ?? null,
    created_at: nowIso(),
  };
  const emitted = ctx.events.emit(ctx.db, ctx.ws.id, 'form.submitted', {
    form_id: formId,
    form_name: row.form_name,
    submission_id: row.id,
    contact_id: row.contact_id,
    origin: row.origin,
    fields: row.fields,
    submitted_at: row.created_at,
  });
  await runBatch(ctx.db, [ctx.db.insert(formSubmissions).values(row), emitted.statement]);
  ctx.events.committedAfter([emitted.event]);
  return row;
}
