import type { ServiceContext } from '../../platform/context';

export type ContactReference = { contact_id?: string; phone?: string; email?: string; name?: string };
export type ResolvedContact = { id: string; name: string | null; phone: string | null; email: string | null; created: boolean };

export async function resolveContactReference(
  _ctx: ServiceContext,
  _ref: ContactReference,
  _opts: { missingMessage: string; source?: string },
): Promise<ResolvedContact> {
  throw new Error('contacts service not merged yet');
}
