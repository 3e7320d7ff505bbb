import { sql } from 'drizzle-orm';
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const LIFECYCLE_STAGES = ['lead', 'prospect', 'customer', 'inactive', 'archived'] as const;
export const CONTACT_SOURCES = ['manual', 'import', 'widget', 'campaign', 'api', 'form'] as const;
export const BLOCK_STATES = ['none', 'workspace', 'global'] as const;
export const GENDERS = ['male', 'female', 'other', 'prefer_not_to_say'] as const;
export const CONSENT_STATES = ['subscribed', 'unsubscribed', 'unknown'] as const;
export const CHANNELS = ['whatsapp', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Provider-reported deliverability values that block email sends. */
export const SUPPRESSING_DELIVERABILITY = ['undeliverable', 'bounced', 'complained', 'invalid'];

/**
 * The email send-eligibility baseline's terms on a contact's own columns (`prefix`: the table's
 * alias and a dot, or nothing). The partial index `contacts_email_eligible` is defined by them, and
 * SQLite uses a partial index only for a query stating its condition: every such query states them
 * through this.
 */
export const emailBaselineTerms = (prefix: string) =>
  `${prefix}email IS NOT NULL AND ${prefix}email_consent_state = 'subscribed' AND ${prefix}block_state = 'none' AND ${prefix}email_complained_at IS NULL ` +
  `AND ${prefix}email_deliverability NOT IN (${SUPPRESSING_DELIVERABILITY.map((v) => `'${v}'`).join(', ')})`;

/**
 * Property names are the wire names: a contact row is most of its response
 * body, and the filter catalog addresses the same names.
 * Consent and deliverability live on the row so list filters on the virtual
 * consent fields stay index-friendly single-table predicates.
 */
export const contacts = sqliteTable(
  'contacts',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    phone: text('phone'),
    email: text('email'),
    name: text('name'),
    first_name: text('first_name'),
    last_name: text('last_name'),
    avatar_url: text('avatar_url'),
    notes: text('notes'),
    lifecycle_stage: text('lifecycle_stage', { enum: LIFECYCLE_STAGES }),
    source: text('source', { enum: CONTACT_SOURCES }),
    block_state: text('block_state', { enum: BLOCK_STATES }).notNull().default('none'),
    block_source: text('block_source'),
    company_name: text('company_name'),
    vat_number: text('vat_number'),
    job_title: text('job_title'),
    industry: text('industry'),
    company_website: text('company_website'),
    annual_revenue: real('annual_revenue'),
    employee_count: integer('employee_count'),
    currency_preference: text('currency_preference'),
    address_line1: text('address_line1'),
    address_line2: text('address_line2'),
    city: text('city'),
    state: text('state'),
    country: text('country'),
    postal_code: text('postal_code'),
    gender: text('gender', { enum: GENDERS }),
    date_of_birth: text('date_of_birth'),
    language: text('language'),
    source_page_url: text('source_page_url'),
    source_page_title: text('source_page_title'),
    referrer: text('referrer'),
    user_agent: text('user_agent'),
    affiliate: text('affiliate'),
    utm_source: text('utm_source'),
    utm_medium: text('utm_medium'),
    utm_campaign: text('utm_campaign'),
    utm_term: text('utm_term'),
    utm_content: text('utm_content'),
    gclid: text('gclid'),
    fbclid: text('fbclid'),
    lead_score: real('lead_score'),
    linkedin_url: text('linkedin_url'),
    facebook_url: text('facebook_url'),
    instagram_handle: text('instagram_handle'),
    twitter_handle: text('twitter_handle'),
    custom_fields: text('custom_fields', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    whatsapp_consent_state: text('whatsapp_consent_state', { enum: CONSENT_STATES }),
    whatsapp_consent_updated_at: text('whatsapp_consent_updated_at'),
    whatsapp_deliverability: text('whatsapp_deliverability').notNull().default('unknown'),
    whatsapp_complained_at: text('whatsapp_complained_at'),
    email_consent_state: text('email_consent_state', { enum: CONSENT_STATES }),
    email_consent_updated_at: text('email_consent_updated_at'),
    email_deliverability: text('email_deliverability').notNull().default('unknown'),
    email_complained_at: text('email_complained_at'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [
    // The primary key's own index has a name SQLite makes up; this one, over the same column, is what a
    // statement walking contacts by id names in `INDEXED BY` (migration 0029).
    uniqueIndex('contacts_id').on(t.id),
    uniqueIndex('contacts_workspace_phone').on(t.workspace_id, t.phone),
    uniqueIndex('contacts_workspace_email').on(t.workspace_id, t.email),
    // The default list order, complete (id breaks ties), carrying the columns filters test most, so a
    // filtered page walks index entries and reads only the rows it returns (migration 0013).
    index('contacts_workspace_created').on(
      t.workspace_id,
      t.created_at,
      t.id,
      t.lifecycle_stage,
      t.lead_score,
      t.country,
      t.email_consent_state,
      t.whatsapp_consent_state,
    ),
    index('contacts_workspace_updated').on(t.workspace_id, t.updated_at),
    // A column's index ends with the id: a sort on the column walks it in full order (id breaks
    // ties), and a filter's set of ids reads the index alone (migration 0015). The consent ones
    // hold the creation time before it: a newest-first page of subscribers walks their range.
    index('contacts_workspace_name').on(t.workspace_id, t.name, t.id),
    index('contacts_workspace_first_name').on(t.workspace_id, t.first_name, t.id),
    index('contacts_workspace_last_name').on(t.workspace_id, t.last_name, t.id),
    index('contacts_workspace_company').on(t.workspace_id, t.company_name, t.id),
    index('contacts_workspace_country').on(t.workspace_id, t.country, t.id),
    index('contacts_workspace_lifecycle').on(t.workspace_id, t.lifecycle_stage, t.created_at, t.id),
    index('contacts_workspace_score').on(t.workspace_id, t.lead_score, t.id),
    index('contacts_workspace_wa_consent').on(t.workspace_id, t.whatsapp_consent_state, t.created_at, t.id),
    index('contacts_workspace_email_consent').on(t.workspace_id, t.email_consent_state, t.created_at, t.id),
    // The contacts the email baseline admits on their own columns, with what the suppression and blacklist checks
    // read: an estimate counts index entries (migration 0022).
    index('contacts_email_eligible')
      .on(t.workspace_id, t.email, t.phone)
      .where(sql.raw(emailBaselineTerms(''))),
    // Covers search terms shorter than a trigram, and counts of filters on these columns that no
    // narrower index serves (substrings, `or` trees): they scan this instead of the wide rows.
    index('contacts_workspace_search').on(
      t.workspace_id,
      t.name,
      t.first_name,
      t.last_name,
      t.email,
      t.phone,
      t.company_name,
      t.country,
      t.city,
      t.lifecycle_stage,
      t.lead_score,
      t.email_consent_state,
      t.whatsapp_consent_state,
    ),
  ],
);

/**
 * Every identifier a contact has held. Resolution falls back to the most
 * recent holder when an identifier has no current owner; search matches it too.
 */
export const contactIdentifiers = sqliteTable(
  'contact_identifiers',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    contact_id: text('contact_id').notNull(),
    kind: text('kind', { enum: ['phone', 'email'] }).notNull(),
    value: text('value').notNull(),
    assigned_at: text('assigned_at').notNull(),
  },
  (t) => [
    uniqueIndex('contact_identifiers_unique').on(t.workspace_id, t.kind, t.value, t.contact_id),
    index('contact_identifiers_lookup').on(t.workspace_id, t.value, t.assigned_at),
    index('contact_identifiers_contact').on(t.contact_id),
  ],
);

export const contactTagLinks = sqliteTable(
  'contact_tag_links',
  {
    workspace_id: text('workspace_id').notNull(),
    contact_id: text('contact_id').notNull(),
    tag_id: text('tag_id').notNull(),
    created_at: text('created_at').notNull(),
  },
  // The holders of a tag, per workspace, from index entries alone (a tag condition's exact count).
  (t) => [primaryKey({ columns: [t.contact_id, t.tag_id] }), index('contact_tag_links_tag').on(t.tag_id, t.workspace_id, t.contact_id)],
);

export const contactGroupLinks = sqliteTable(
  'contact_group_links',
  {
    workspace_id: text('workspace_id').notNull(),
    contact_id: text('contact_id').notNull(),
    group_id: text('group_id').notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.contact_id, t.group_id] }), index('contact_group_links_group').on(t.group_id, t.workspace_id, t.contact_id)],
);

/**
 * Each contact's top-level `custom_fields` entries as rows (JSON nulls left
 * out), kept by triggers on `contacts` (migration 0014), so a condition on
 * `custom_fields.<key>` is an index range instead of a JSON parse per contact.
 * `value` has no type affinity: it holds what `json_each` yields (text,
 * integer, real, or JSON text for objects and arrays), and compares exactly as
 * `json_extract` of the same key does. A merge needs no re-keying here: the
 * absorbed contact's delete and the target's update rewrite the rows.
 */
export const contactCustomValues = sqliteTable(
  'contact_custom_values',
  {
    workspace_id: text('workspace_id').notNull(),
    contact_id: text('contact_id').notNull(),
    key: text('key').notNull(),
    value: blob('value'),
  },
  (t) => [primaryKey({ columns: [t.contact_id, t.key] }), index('contact_custom_values_lookup').on(t.workspace_id, t.key, t.value)],
);

/**
 * Each workspace's number on its shard, given with its first contact, payment or deal
 * (migrations 0021, 0027): the search indexes `contacts_search`, `payments_search` and
 * `deals_search` file a record under `space * 2^40 + the record's rowid`, so one workspace's
 * entries are one rowid range of each (`search-space.ts`).
 */
export const contactSearchSpaces = sqliteTable(
  'contact_search_spaces',
  {
    workspace_id: text('workspace_id').primaryKey(),
    space: integer('space').notNull(),
  },
  (t) => [uniqueIndex('contact_search_spaces_space').on(t.space)],
);

/** Contact timeline: one row per change made through any surface. */
export const contactActivities = sqliteTable(
  'contact_activities',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    contact_id: text('contact_id').notNull(),
    type: text('type').notNull(),
    source: text('source').notNull(),
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [index('contact_activities_contact').on(t.workspace_id, t.contact_id, t.created_at)],
);

/**
 * A phone/email conflict waiting for an operator. One open request per pair
 * (`pair_key` = both ids sorted); repeated conflicts refresh its parked fields.
 */
export const mergeRequests = sqliteTable(
  'contact_merge_requests',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    target_contact_id: text('target_contact_id').notNull(),
    other_contact_id: text('other_contact_id').notNull(),
    pair_key: text('pair_key').notNull(),
    status: text('status', { enum: ['open', 'merged', 'dismissed'] }).notNull(),
    origin: text('origin', { enum: ['create', 'update'] }).notNull(),
    identity: text('identity', { mode: 'json' }).$type<{ phone?: string | null; email?: string | null }>().notNull(),
    parked_fields: text('parked_fields', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
    resolved_at: text('resolved_at'),
  },
  (t) => [uniqueIndex('contact_merge_requests_open_pair').on(t.workspace_id, t.pair_key).where(sql`status = 'open'`)],
);

/**
 * Per workspace, a number that moves with every write to what a contact list
 * can filter, search or sort on: contacts, their identifier history, tag and
 * group links and event attendances. Triggers move it (migration 0012), so no
 * write path can forget to.
 */
export const contactListGenerations = sqliteTable('contact_list_generations', {
  workspace_id: text('workspace_id').primaryKey(),
  generation: integer('generation').notNull(),
});

/**
 * A filtered list's exact answer (its total and the ids of its page) as of a
 * generation: valid while the workspace's generation has not moved (./list-cache.ts).
 */
export const contactListCache = sqliteTable(
  'contact_list_cache',
  {
    workspace_id: text('workspace_id').notNull(),
    key: text('key').notNull(),
    generation: integer('generation').notNull(),
    total: integer('total').notNull(),
    contact_ids: text('contact_ids').notNull(),
    cached_at: text('cached_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.key] })],
);
