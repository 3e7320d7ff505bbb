import { sql } from 'drizzle-orm';
import { nowIso, type Db } from '../../platform/d1/db';
import { failedOn, uniqueOn } from '../../platform/d1/constraints';
import type { FilterCatalog } from '../../platform/filter';
import { uuidv7 } from '../../platform/ids';
import { rawAll } from '../../platform/d1/raw-query';
import { listTable, tableFields, type ListParams } from './listing';
import { placeholderProblem, placeholdersOf } from './placeholders';
import { TEMPLATE_CATEGORIES, TEMPLATE_STATUSES, whatsappTemplates, type TemplateButton, type TemplateHeader } from './schema';
import { WhatsAppErrors } from './errors';

/** A template row as SQL returns it (snake_case, JSON as text). */
type RawTemplate = {
  id: string;
  workspace_id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  body: string;
  header: string | null;
  buttons: string;
  placeholders: string;
  created_at: string;
  updated_at: string;
};

export type Template = {
  id: string;
  workspace_id: string;
  name: string;
  language: string;
  category: (typeof TEMPLATE_CATEGORIES)[number];
  status: (typeof TEMPLATE_STATUSES)[number];
  body: string;
  header: TemplateHeader | null;
  buttons: TemplateButton[];
  placeholders: string[];
  created_at: string;
  updated_at: string;
};

export const serializeTemplate = (r: RawTemplate): Template => ({
  id: r.id,
  workspace_id: r.workspace_id,
  name: r.name,
  language: r.language,
  category: r.category as Template['category'],
  status: r.status as Template['status'],
  body: r.body,
  header: r.header ? JSON.parse(r.header) : null,
  buttons: JSON.parse(r.buttons),
  placeholders: JSON.parse(r.placeholders),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const catalog: FilterCatalog = {
  fields: tableFields({ name: 'text', language: 'text', category: TEMPLATE_CATEGORIES, status: TEMPLATE_STATUSES, body: 'text' }),
};

export const TEMPLATE_SORTS = ['created_at', 'updated_at', 'name', 'language', 'status'] as const;
export const TEMPLATE_FILTER_FIELDS = Object.keys(catalog.fields);

export async function listTemplates(db: Db, workspaceId: string, query: ListParams) {
  const page = await listTable<RawTemplate>(db, workspaceId, query, {
    table: 'whatsapp_templates',
    catalog,
    sorts: TEMPLATE_SORTS,
    search: [sql`t.name`, sql`t.body`],
  });
  return { ...page, data: page.data.map(serializeTemplate) };
}

/** Batchable read of one template of the workspace. */
export const selectTemplate = (db: Db, workspaceId: string, id: string) =>
  rawAll<RawTemplate>(db, sql`SELECT t.* FROM whatsapp_templates t WHERE t.workspace_id = ${workspaceId} AND t.id = ${id}`);

/** Batchable read of a campaign's template (looked up through the campaign in the same statement). */
export const selectCampaignTemplate = (db: Db, workspaceId: string, campaignId: string) =>
  rawAll<RawTemplate>(
    db,
    sql`SELECT t.* FROM whatsapp_templates t WHERE t.workspace_id = ${workspaceId} AND t.id = (SELECT w.template_id FROM whatsapp_campaigns w WHERE w.id = ${campaignId})`,
  );

export const templateFrom = (rows: RawTemplate[]): Template | null => {
  const [row] = rows;
  return row ? serializeTemplate(row) : null;
};

export async function getTemplate(db: Db, workspaceId: string, id: string): Promise<Template> {
  const template = templateFrom(await selectTemplate(db, workspaceId, id));
  if (!template) throw WhatsAppErrors.templateNotFound();
  return template;
}

export type TemplateInput = {
  name: string;
  language: string;
  category: Template['category'];
  status?: Template['status'];
  body: string;
  header?: TemplateHeader | null;
  buttons?: TemplateButton[];
};

const nameAndLanguageTaken = uniqueOn(whatsappTemplates.workspaceId, whatsappTemplates.name, whatsappTemplates.language);

/** The operator creates templates (management is in-app); `{workspace, name, language}` is unique (409). */
export async function createTemplate(db: Db, workspaceId: string, input: TemplateInput): Promise<Template> {
  const problems = [
    placeholderProblem('body', input.body),
    input.header?.type === 'text' ? placeholderProblem('header.text', input.header.text) : null,
  ].filter((p): p is string => p !== null);
  if (problems.length) throw WhatsAppErrors.templateProblems({ problems });
  const now = nowIso();
  const row = {
    id: uuidv7(),
    workspaceId,
    name: input.name,
    language: input.language,
    category: input.category,
    status: input.status ?? 'approved',
    body: input.body,
    header: input.header ?? null,
    buttons: input.buttons ?? [],
    placeholders: placeholdersOf(input.body),
    createdAt: now,
    updatedAt: now,
  };
  try {
    await db.insert(whatsappTemplates).values(row);
  } catch (err) {
    if (failedOn(err, nameAndLanguageTaken)) throw WhatsAppErrors.templateExists();
    throw err;
  }
  return getTemplate(db, workspaceId, row.id);
}
