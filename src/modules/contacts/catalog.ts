import { sql, type SQL } from 'drizzle-orm';
import { invalidFilter, MAX_ARRAY_ITEMS, type FieldDef, type FilterBuilder, type FilterCatalog } from '../../platform/filter';
import { isUuid } from '../../platform/validation';
import { SCALAR_FIELDS } from './fields';
import { BLOCK_STATES } from './schema';

const col = (name: string) => sql.raw(`c.${name}`);

const stored: Record<string, FieldDef> = Object.fromEntries(
  Object.entries(SCALAR_FIELDS).map(([name, def]) => [name, { kind: def.kind, expr: col(name), ...('values' in def ? { values: def.values } : {}) }]),
);

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
    // Uncorrelated: the link index finds the holders once, instead of one probe per contact; matched
    // by rowid, so a count tests index entries instead of reading each contact's row.
    parts.push(
      sql`c.rowid IN (SELECT x.rowid FROM contacts x WHERE x.id IN (SELECT l.contact_id FROM ${sql.raw(table)} l WHERE l.${sql.raw(column)} IN ${b.arrayRef(unique)}
        GROUP BY l.contact_id HAVING count(*) = ${b.scalarRef(unique.length)}))`,
    );
  }
  return parts.length ? sql`(${sql.join(parts, sql.raw(' AND '))})` : sql`1`;
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
    phone: { kind: 'text', expr: col('phone') },
    email: { kind: 'text', expr: col('email') },
    block_state: { kind: 'enum', expr: col('block_state'), values: BLOCK_STATES },
    created_at: { kind: 'timestamp', expr: col('created_at') },
    updated_at: { kind: 'timestamp', expr: col('updated_at') },
    whatsapp_subscribed: { kind: 'boolean', expr: sql`(coalesce(c.whatsapp_consent_state, '') = 'subscribed')` },
    email_subscribed: { kind: 'boolean', expr: sql`(coalesce(c.email_consent_state, '') = 'subscribed')` },
    whatsapp_deliverability: { kind: 'text', expr: col('whatsapp_deliverability') },
    email_deliverability: { kind: 'text', expr: col('email_deliverability') },
  },
  customField: (keyRef) => sql`json_extract(c.custom_fields, ${keyRef})`,
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
