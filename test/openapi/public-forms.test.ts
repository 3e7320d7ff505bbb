import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { call } from '../support/harness';
import { futureHour, setupType } from '../bookings/helpers';

/**
 * The hosted booking page's form posts are documented as what the page sends: the document's
 * form body names every field the page's form has, and a post of the documented required
 * fields books.
 */
type Media = { schema: { $ref?: string; required?: string[]; properties?: Record<string, unknown> } };
type Doc = {
  paths: Record<string, Record<string, { requestBody?: { required?: boolean; content: Record<string, Media> } }>>;
  components: { schemas: Record<string, Media['schema']> };
};

const resolve = (doc: Doc, schema: Media['schema']) => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema);

async function post(path: string, fields: Record<string, string>) {
  const res: Response = await (exports as any).default.fetch(
    new Request(`https://api.test${path}`, {
      method: 'POST',
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    }),
  );
  return res.status;
}

describe('documented form posts', () => {
  it('POST /book/{ws}/{slug}: the documented body is the page form, and its required fields book', async () => {
    const doc = (await call<Doc>('GET', '/v1/openapi.json')).body;
    const body = doc.paths['/book/{ws}/{slug}'].post.requestBody!;
    expect(body.required).toBe(true);
    const schema = resolve(doc, body.content['application/x-www-form-urlencoded'].schema);
    expect(schema.required?.sort()).toEqual(['email', 'name', 'start_at', 'timezone']);

    const { ws, mt } = await setupType();
    const pagePath = new URL((await ws.api('GET', `/v1/meeting-types/${mt.id}/embed`)).body.page_url).pathname;
    const start = futureHour(1);
    const page = await call('GET', `${pagePath}?tz=UTC&day=${start.slice(0, 10)}`);
    const postForms = [...String(page.body).matchAll(/<form[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/g)].map((m) => m[1]);
    expect(postForms).toHaveLength(1);
    const formFields = new Set([...postForms[0].matchAll(/<(?:input|textarea|select)[^>]*\bname="([^"]+)"/g)].map((m) => m[1]));
    expect(formFields.size).toBeGreaterThan(3);
    for (const name of formFields) expect(Object.keys(schema.properties ?? {}), `page field ${name}`).toContain(name);

    const fields = { start_at: start, timezone: 'UTC', name: 'Doc Reader', email: `doc-${crypto.randomUUID().slice(0, 6)}@example.com` };
    expect(Object.keys(fields).sort()).toEqual(schema.required!.sort());
    expect(await post(pagePath, fields)).toBe(303);
  });

  it('POST /book/{ws}/manage/{token}/cancel documents its confirm field and optional reason', async () => {
    const doc = (await call<Doc>('GET', '/v1/openapi.json')).body;
    const body = doc.paths['/book/{ws}/manage/{token}/cancel'].post.requestBody!;
    expect(body.required).toBe(false);
    expect(Object.keys(resolve(doc, body.content['application/x-www-form-urlencoded'].schema).properties ?? {})).toEqual(['confirm', 'reason']);
  });
});
