import { sql, type SQL } from 'drizzle-orm';
import { invalidFilter, MAX_ARRAY_ITEMS, type FieldDef, type FilterBuilder, type FilterCatalog } from '../../platform/filter';
import { isUuid } from '../../platform/validation';
import { SCALAR_FIELDS } from './fields';
import { BLOCK_STATES } from './schema';

const col = (name: string) => sql.raw(`c.${name}`);

/** Fields with an index on (workspace_id, the field, id): their `eq` and `starts_with` conditions are also ranges of it. */
const INDEXES: Partial<Record<string, string>> = {
  name: 'contacts_workspace_name',
  first_name: 'contacts_workspace_first_name',
  last_name: 'contacts_workspace_last_name',
  company_name: 'contacts_workspace_company',
  country: 'contacts_workspace_country',
  lifecycle_stage: 'contacts_workspace_lifecycle',
  lead_score: 'contacts_workspace_score',
  email: 'contacts_workspace_email',
  phone: 'contacts_workspace_phone',
  email_subscribed: 'contacts_workspace_email_consent',
  whatsapp_subscribed: 'contacts_workspace_wa_consent',
};
const indexOf = (name: string) => (INDEXES[name] ? { index: INDEXES[name] } : {});

const stored: Record<string, FieldDef> = Object.fromEntries(
  Object.entries(SCALAR_FIELDS).map(([name, def]) => [
    name,
    { kind: def.kind, expr: col(name), ...('values' in def ? { values: def.values } : {}), ...indexOf(name) },
  ]),
);

/**
 * The contacts a set of ids lists. Uncorrelated: the set is built once, instead
 * of one probe per contact; matched by rowid, so a count walking an index tests
 * its entries instead of reading each contact's row.
 */
const listedIn = (set: SQL) => sql`(c.rowid IN (SELECT x.rowid FROM contacts x WHERE x.id IN (${set})))`;

const LINKS = { tags: ['contact_tag_links', 'tag_id'], groups: ['contact_group_links', 'group_id'] } as const;

/** `{"$jsonb_contains": {"tags": [uuid, ...], "groups": [...]}}`: the contact holds every listed id. */
function jsonbContains(value: unknown, b: FilterBuilder): SQL {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidFilter('$jsonb_contains needs an object like {"tags": ["<uuid>"]}');
  }
  const parts: SQL[] = [];
  for (const [key, ids] of Object.entries(value)) {
    if (key !== 'tags' && key !== 'groups') throw invalidFilter(`$jsonb_contains applies to "tags" or "groups", not "${key.slice(0, 100)}"`);
    if (!Array.isArray(ids)) throw invalidFilter(`$jsonb_contains "${key}" needs an array of UUIDs`);
    if (ids.length > MAX_ARRAY_ITEMS) throw invalidFilter(`arrays hold at most ${MAX_ARRAY_ITEMS} items`);
    for (const id of ids) {
      if (!isUuid(id)) throw invalidFilter(`$jsonb_contains "${key}" holds ids: "${String(id).slice(0, 100)}" is not a UUID`);
    }
    const unique = [...new Set(ids.map((id: string) => id.toLowerCase()))];
    if (unique.length === 0) continue;
    const [table, column] = LINKS[key];
    const workspace = b.workspaceRef();
    const scope = workspace ? sql` AND l.workspace_id = ${workspace}` : sql``;
    const [links, linked] = [sql.raw(table), sql.raw(`l.${column}`)];
    // The holders of every listed id, from the link index's entries alone; or one contact's links.
    // A contact links a label at most once, so one id needs no grouping (the index walk streams).
    let holders: SQL;
    let holds: SQL;
    const ranged = unique.length === 1;
    if (ranged) {
      const one = b.scalarRef(unique[0]);
      holders = sql`SELECT l.contact_id AS id FROM ${links} l WHERE ${linked} = ${one}${scope}`;
      holds = sql`EXISTS (SELECT 1 FROM ${links} l WHERE l.contact_id = c.id AND ${linked} = ${one})`;
    } else {
      const [listed, needed] = [b.arrayRef(unique), b.scalarRef(unique.length)];
      holders = sql`SELECT l.contact_id AS id FROM ${links} l WHERE ${linked} IN ${listed}${scope} GROUP BY l.contact_id HAVING count(*) = ${needed}`;
      holds = sql`((SELECT count(*) FROM ${links} l WHERE l.contact_id = c.id AND ${linked} IN ${listed}) = ${needed})`;
    }
    parts.push(workspace ? b.withSet(listedIn(holders), { set: holders, probe: holds, gauge: holders, ranged }) : listedIn(holders));
  }
  return parts.length ? b.combine(parts, 'AND') : sql`1`;
}

/** `{"$event_attendance": {"event_id": uuid, "status"?: string}}`. */
function eventAttendance(value: unknown, b: FilterBuilder): SQL {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidFilter('$event_attendance needs an object like {"event_id": "<uuid>", "status": "attended"}');
  }
  const { event_id: eventId, status, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length) throw invalidFilter('$event_attendance takes only "event_id" and "status"');
  if (!isUuid(eventId)) throw invalidFilter('$event_attendance "event_id" must be a UUID');
  if (status !== undefined && typeof status !== 'string') throw invalidFilter('$event_attendance "status" must be a string');
  const byStatus = status === undefined ? sql`` : sql` AND a.status = ${b.ref(status)}`;
  return sql`(EXISTS (SELECT 1 FROM event_attendances a WHERE a.contact_id = c.id AND a.event_id = ${b.ref(eventId.toLowerCase())}${byStatus}))`;
}

/** Every filterable contact field (the list query aliases contacts as `c`). */
export const contactCatalog: FilterCatalog = {
  fields: {
    ...stored,
    id: { kind: 'uuid', expr: col('id') },
    workspace_id: { kind: 'uuid', expr: col('workspace_id') },
    phone: { kind: 'text', expr: col('phone'), ...indexOf('phone') },
    email: { kind: 'text', expr: col('email'), ...indexOf('email') },
    block_state: { kind: 'enum', expr: col('block_state'), values: BLOCK_STATES },
    created_at: { kind: 'timestamp', expr: col('created_at') },
    updated_at: { kind: 'timestamp', expr: col('updated_at') },
    whatsapp_subscribed: {
      kind: 'boolean',
      expr: sql`(coalesce(c.whatsapp_consent_state, '') = 'subscribed')`,
      truth: sql`(c.whatsapp_consent_state = 'subscribed')`,
      ...indexOf('whatsapp_subscribed'),
    },
    email_subscribed: {
      kind: 'boolean',
      expr: sql`(coalesce(c.email_consent_state, '') = 'subscribed')`,
      truth: sql`(c.email_consent_state = 'subscribed')`,
      ...indexOf('email_subscribed'),
    },
    whatsapp_deliverability: { kind: 'text', expr: col('whatsapp_deliverability') },
    email_deliverability: { kind: 'text', expr: col('email_deliverability') },
  },
  customField: (keyRef) => sql`json_extract(c.custom_fields, ${keyRef})`,
  customValues: {
    set: (key, workspace, condition) =>
      sql`SELECT v.contact_id AS id FROM contact_custom_values v WHERE v.workspace_id = ${workspace} AND v.key = ${key} AND ${condition}`,
    member: listedIn,
    probe: (key, condition) => sql`EXISTS (SELECT 1 FROM contact_custom_values v WHERE v.contact_id = c.id AND v.key = ${key} AND ${condition})`,
  },
  indexedRows: {
    range: (index, workspace, condition) =>
      sql`SELECT c.id FROM fp CROSS JOIN contacts c INDEXED BY ${sql.raw(index)} WHERE c.workspace_id = ${workspace} AND ${condition}`,
  },
  operators: { $jsonb_contains: jsonbContains, $event_attendance: eventAttendance },
};

export const CONTACT_SORTS = [
  'created_at',
  'updated_at',
  'name',
  'first_name',
  'last_name',
  'email',
  'phone',
  'company_name',
  'lifecycle_stage',
  'lead_score',
  'city',
  'country',
  'date_of_birth',
  'annual_revenue',
  'employee_count',
] as const;
