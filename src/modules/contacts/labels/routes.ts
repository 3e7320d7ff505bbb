import { listQuery } from '../../../platform/list';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../../platform/openapi';
import { createRouter, idParams } from '../../../platform/validation';
import { Label, LabelCreate, LabelPage, LabelPatch } from './dto';
import type { LabelKind } from './links';
import { createLabel, getLabel, LABEL_SORTS, listLabels, updateLabel } from './service';
import { LABEL_KIND_ERRORS } from './errors';

export const labelRoutes = createRouter();

/** Tags (`/tags`) and contact groups (`/contact-groups`) share routes and rules. */
const MOUNTS: { kind: LabelKind; path: string; tag: string; one: string; op: string }[] = [
  { kind: 'tags', path: '/tags', tag: 'Tags', one: 'tag', op: 'Tag' },
  { kind: 'groups', path: '/contact-groups', tag: 'Contact groups', one: 'contact group', op: 'ContactGroup' },
];

const LABEL_LIST_QUERY = listQuery({
  sorts: LABEL_SORTS,
  paging: { limit: 50, cap: 500 },
  search: 'Case-insensitive substring of the name',
  filterExample: { name: 'vip' },
});

for (const m of MOUNTS) {
  const { notFound, duplicate } = LABEL_KIND_ERRORS[m.kind];
  labelRoutes.openapi(
    defineRoute({
      method: 'get',
      path: m.path,
      operationId: `list${m.op}s`,
      tags: [m.tag],
      summary: `List ${m.one}s`,
      description:
        'Shared list conventions; `search` matches the name; filterable fields: id, name, color, description, contact_count, created_at, updated_at.',
      security: bearer,
      request: { query: LABEL_LIST_QUERY },
      responses: { 200: jsonContent(LabelPage, `A page of ${m.one}s`) },
    }),
    async (c) => c.json(await listLabels(c.var.db, m.kind, c.var.workspace.id, c.req.valid('query')), 200),
  );
  labelRoutes.openapi(
    defineRoute({
      method: 'get',
      path: `${m.path}/{id}`,
      operationId: `get${m.op}`,
      tags: [m.tag],
      summary: `Get a ${m.one}`,
      security: bearer,
      request: { params: idParams },
      responses: { 200: jsonContent(Label, `The ${m.one}`) },
      errors: [notFound],
    }),
    async (c) => c.json(await getLabel(c.var.db, m.kind, c.var.workspace.id, c.req.valid('param').id.toLowerCase()), 200),
  );
  labelRoutes.openapi(
    defineRoute({
      method: 'post',
      path: m.path,
      operationId: `create${m.op}`,
      tags: [m.tag],
      summary: `Create a ${m.one}`,
      description: 'Names are unique per workspace, compared case-insensitively.',
      security: bearer,
      request: { body: jsonBody(LabelCreate, { name: 'VIP', color: '#d4a017', description: 'Top accounts' }) },
      responses: { 201: jsonContent(Label, `The created ${m.one}`) },
      errors: [duplicate],
    }),
    async (c) => c.json(await createLabel(c.var.db, m.kind, c.var.workspace.id, c.req.valid('json')), 201),
  );
  labelRoutes.openapi(
    defineRoute({
      method: 'patch',
      path: `${m.path}/{id}`,
      operationId: `update${m.op}`,
      tags: [m.tag],
      summary: `Update a ${m.one}`,
      security: bearer,
      request: { params: idParams, body: jsonBody(LabelPatch, { color: '#1f6feb' }) },
      responses: { 200: jsonContent(Label, `The updated ${m.one}`) },
      errors: [notFound, duplicate],
    }),
    async (c) => c.json(await updateLabel(c.var.db, m.kind, c.var.workspace.id, c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 200),
  );
}
