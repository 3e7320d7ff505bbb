import { eq } from 'drizzle-orm';
import type { Bindings } from '../src/env';
import type { ContactWriteInput } from '../src/modules/contacts/fields';
import { planChanges } from '../src/modules/contacts/plan';
import { newContactRow } from '../src/modules/contacts/create';
import { normalizeWrite } from '../src/modules/contacts/service';
import { workspaces } from '../src/platform/control-schema';
import type { ServiceContext } from '../src/platform/context';
import { controlDb } from '../src/platform/d1/shards';
import { d1 } from './bindings';
import { uuidv7 } from '../src/platform/ids';

export type SeedContact = Omit<ContactWriteInput, 'tags' | 'groups'> & { created_at: string; tag_ids?: string[] };

type Row = Record<string, unknown>;

/**
 * One statement inserting any number of rows: the rows travel as ONE bound
 * JSON parameter (D1 allows 100 parameters a statement), unpacked by json_each.
 */
function jsonInsert(d1: D1Database, table: string, rows: Row[]): D1PreparedStatement {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const values = columns.map((c) => `json_extract(value, '$.${c}')`).join(', ');
  return d1.prepare(`INSERT INTO ${table} (${columns.join(', ')}) SELECT ${values} FROM json_each(?)`).bind(JSON.stringify(rows));
}

/**
 * The rows `POST /v1/contacts` writes when it creates a contact (the contact,
 * its identifier history, the consent seed, the timeline entry and its tag
 * links; `contacts_search` follows through its triggers), for many contacts in one
 * batch. Each contact's rows share its `created_at`, as one create's do.
 */
export async function seedContacts(workspaceId: string, input: SeedContact[], env: Bindings) {
  const [ws] = await controlDb(env).select().from(workspaces).where(eq(workspaces.id, workspaceId));
  if (!ws) return Response.json({ error: 'unknown workspace' }, { status: 404 });
  const ctx = { ws } as unknown as ServiceContext;
  const contacts: Row[] = [];
  const identifiers: Row[] = [];
  const consent: Row[] = [];
  const activities: Row[] = [];
  const tagLinks: Row[] = [];
  for (const { created_at: now, tag_ids: tagIds = [], ...fields } of input) {
    const at = Date.parse(now);
    const id = uuidv7(at);
    const { set } = planChanges(ws, null, normalizeWrite(ctx, fields), false);
    const row = newContactRow(set, { id, workspaceId: ws.id, source: (set.source as string | undefined) ?? 'import', now });
    // Every row names every column the batch inserts: a contact without custom fields holds an empty object.
    row.custom_fields ??= {};
    const { phone, email } = row;
    contacts.push(row);
    const seed = (channel: string, state: string) => ({
      id: uuidv7(at),
      workspace_id: ws.id,
      contact_id: id,
      channel,
      action: 'seed',
      state,
      previous_state: null,
      source: 'api',
      basis: null,
      evidence: null,
      created_at: now,
    });
    if (phone) {
      identifiers.push({ id: uuidv7(at), workspace_id: ws.id, contact_id: id, kind: 'phone', value: phone, assigned_at: now });
      consent.push(seed('whatsapp', 'subscribed'));
    }
    if (email) {
      identifiers.push({ id: uuidv7(at), workspace_id: ws.id, contact_id: id, kind: 'email', value: email, assigned_at: now });
      consent.push(seed('email', 'unknown'));
    }
    activities.push({ id: uuidv7(at), workspace_id: ws.id, contact_id: id, type: 'created', source: 'import', data: '{}', created_at: now });
    for (const tagId of tagIds) tagLinks.push({ workspace_id: ws.id, contact_id: id, tag_id: tagId, created_at: now });
  }
  const shard = d1(env, ws.shard);
  const statements = [
    jsonInsert(shard, 'contacts', contacts),
    jsonInsert(shard, 'contact_identifiers', identifiers),
    jsonInsert(shard, 'consent_ledger', consent),
    jsonInsert(shard, 'contact_activities', activities),
  ];
  if (tagLinks.length) statements.push(jsonInsert(shard, 'contact_tag_links', tagLinks));
  await shard.batch(statements);
  return Response.json({ inserted: contacts.length, ids: contacts.map((c) => c.id) }, { status: 201 });
}
