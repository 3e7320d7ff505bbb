import type { ServiceContext } from '../../platform/context';
import { nowIso, runBatch } from '../../platform/d1/db';
import { ApiError } from '../../platform/errors';
import { FormErrors } from './errors';
import { uuidv7 } from '../../platform/ids';
import { resolveContactReference } from '../contacts';
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
 * `form`). A submission is never lost to its contact: when none is given or
 * resolution refuses it (a merge conflict, a blacklisted phone, the contact cap,
 * an unusable identifier), it is stored and fires with `contact_id: null`.
 */
export async function submitForm(ctx: ServiceContext, formId: string, input: SubmissionInput) {
  const contact = input.contact ? await resolveSubmitter(ctx, input.contact) : null;
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
  await runBatch(ctx.db, [
    ctx.db.insert(formSubmissions).values(row),
    emitted.statement,
    ...(row.contact_id ? ctx.events.signal(ctx.db, ctx.ws.id, row.contact_id, 'form.submitted') : []),
  ]);
  ctx.events.committedAfter([emitted.event]);
  return row;
}

async function resolveSubmitter(ctx: ServiceContext, ref: NonNullable<SubmissionInput['contact']>) {
  try {
    return await resolveContactReference(ctx, ref, { missing: FormErrors.noContact, source: 'form' });
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
}
