import { beforeAll, describe, expect, it } from 'vitest';
import { contactCatalog, CONTACT_SORTS } from '../../src/modules/contacts/catalog';
import { adminOk, makeWorkspace, type TestWorkspace } from '../support/harness';
import { createContact, filterQuery, rows } from './helpers';

const OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'contains', 'not_contains', 'starts_with', 'ends_with', 'is_null', 'is_not_null'];

const SAMPLE: Record<string, unknown> = {
  text: 'x',
  uuid: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c',
  date: '2020-01-01',
  timestamp: '2020-01-01T00:00:00Z',
  number: 1.5,
  integer: 2,
  boolean: true,
};

const UNLIMITED = { rate_limits: { per_key_per_minute: 1_000_000 } };
const PER_IP_BUDGET = 250;

let ws: TestWorkspace;
let used = 0;
const ids = (res: { body: any }) => res.body.data.map((c: any) => c.id);

async function seededWorkspace() {
  const fresh = await makeWorkspace(UNLIMITED, { pipeline: false });
  await createContact(fresh, { name: 'Zoë Ödön', email: 'zoe@example.com', lifecycle_stage: 'lead', custom_fields: { k: 'v' } });
  return fresh;
}

/** Each workspace calls from its own IP: a new one before the per-IP budget runs out. */
async function list(q: string) {
  if (++used > PER_IP_BUDGET) {
    ws = await seededWorkspace();
    used = 1;
  }
  return ws.api('GET', `/v1/contacts?${q}`);
}

beforeAll(async () => {
  ws = await seededWorkspace();
});

describe('odd but valid list input', () => {
  it('answers 200 or a 400 (never a 500) for every catalog field with every operator', async () => {
    const fields = [...Object.keys(contactCatalog.fields), 'custom_fields.k'];
    for (const field of fields) {
      const def = contactCatalog.fields[field];
      const sample = def ? (def.kind === 'enum' ? def.values![0] : SAMPLE[def.kind]) : 'v';
      for (const op of OPS) {
        const node =
          op === 'is_null' || op === 'is_not_null' ? { field, op } : { field, op, value: op === 'in' || op === 'not_in' ? [sample] : sample };
        const res = await list(filterQuery({ $where: node }));
        expect([200, 400], `${field} ${op}: ${JSON.stringify(res.body)}`).toContain(res.status);
      }
      const top = await list(filterQuery({ [field]: { $gt: sample } }));
      expect([200, 400], `${field} $gt`).toContain(top.status);
    }
  });

  it('sorts by every sortable field both ways', async () => {
    for (const field of CONTACT_SORTS) {
      for (const sort of [field, `-${field}`]) expect((await list(`sort=${sort}`)).status, sort).toBe(200);
    }
  });

  it('searches LIKE and FTS metacharacters literally', async () => {
    for (const term of ['%', '_', '\\', '%%', '_a', 'a%b', '"', '""', '"a" OR "b"', 'NEAR(a b)', '*', 'zo*', "'; --", '😀', '😀😀😀', 'e\u0301']) {
      const res = await list(`search=${encodeURIComponent(term)}`);
      expect(res.status, term).toBe(200);
      expect(res.body.data, term).toEqual([]);
    }
  });

  it('searches case-insensitively beyond ASCII, short terms too', async () => {
    const [zoe] = ids(await list('search=zoe@'));
    for (const term of ['ÖDÖN', 'ödö', 'ZOË', 'Ö', 'öD', 'Ë']) {
      expect(ids(await list(`search=${encodeURIComponent(term)}`)), term).toEqual([zoe]);
    }
  });
});

describe('tag and group search', () => {
  it('matches names case-insensitively beyond ASCII', async () => {
    for (const path of ['/v1/tags', '/v1/contact-groups']) {
      const own = await makeWorkspace({}, { pipeline: false });
      await own.api('POST', path, { name: 'ÉCOLE Été' });
      await own.api('POST', path, { name: 'other' });
      for (const term of ['école', 'ÉTÉ', 'é']) {
        const res = await own.api('GET', `${path}?search=${encodeURIComponent(term)}`);
        expect(
          res.body.data.map((t: any) => t.name),
          `${path} ${term}`,
        ).toEqual(['ÉCOLE Été']);
      }
    }
  });
});

describe('merge', () => {
  it('moves the absorbed contact form submissions to the surviving contact', async () => {
    const own = await makeWorkspace({}, { pipeline: false });
    const target = await createContact(own, { phone: '+14155550170' });
    const formId = crypto.randomUUID();
    const sub = await adminOk('POST', `/workspaces/${own.id}/forms/${formId}/submissions`, {
      form_name: 'F',
      origin: 'form',
      fields: {},
      contact: { email: 'absorbed@example.com' },
    });
    expect(sub.contact_id).not.toBe(target.id);
    const conflict = await own.api('POST', '/v1/contacts', { phone: '+14155550170', email: 'absorbed@example.com' });
    expect(conflict.status).toBe(409);
    await adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    const [row] = await rows<{ contact_id: string }>('SELECT contact_id FROM form_submissions WHERE id = ?', sub.id);
    expect(row.contact_id).toBe(target.id);
  });
});

describe('workspace_id inside a filter', () => {
  it('is replaced with the caller workspace inside $where too, on contacts, tags and groups', async () => {
    const own = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(own, { email: 'scoped@example.com', tags: ['t'], groups: ['g'] });
    const foreign = crypto.randomUUID();
    for (const path of ['/v1/contacts', '/v1/tags', '/v1/contact-groups']) {
      const where = async (node: unknown) => {
        const res = await own.api('GET', `${path}?${filterQuery({ $where: node })}`);
        expect(res.status, `${path} ${JSON.stringify(node)} ${JSON.stringify(res.body)}`).toBe(200);
        return res.body.total;
      };
      expect(await where({ field: 'workspace_id', op: 'eq', value: foreign }), path).toBe(1);
      expect(await where({ field: 'workspace_id', op: 'in', value: [foreign] }), path).toBe(1);
      expect(await where({ not: { field: 'workspace_id', op: 'eq', value: foreign } }), path).toBe(0);
      expect(
        await where({
          and: [
            { field: 'workspace_id', op: 'eq', value: foreign },
            { field: 'id', op: 'neq', value: foreign },
          ],
        }),
        path,
      ).toBe(1);
    }
    expect(c.id).toBeTruthy();
  });
});
