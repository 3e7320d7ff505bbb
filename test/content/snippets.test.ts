import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { snippets } from '../../src/modules/content/schema';
import { compileForWorkspace } from '../../src/modules/content/service';
import type { Bindings } from '../../src/env';
import { ApiError } from '../../src/platform/errors';
import { ENVELOPE_SURFACE } from '../../src/platform/error-surfaces';
import { workspaceDb } from '../../src/platform/d1/shards';
import { admin, adminOk, makeWorkspace, SHARDS } from '../support/harness';

const rejection = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
};

describe('snippets (operator) and compiling against a workspace', () => {
  it.each(SHARDS)('resolves snippets by name or id, per workspace (%s)', async (shard) => {
    const ws = await makeWorkspace({ shard }, { pipeline: false });
    const other = await makeWorkspace({ shard }, { pipeline: false });
    const footer = await adminOk('POST', `/workspaces/${ws.id}/snippets`, { name: 'Footer', markdown: 'Sent by **Acme**' });
    await adminOk('POST', `/workspaces/${other.id}/snippets`, { name: 'Elsewhere', markdown: 'not yours' });
    expect(footer).toMatchObject({ name: 'Footer', markdown: 'Sent by **Acme**', html: null });
    const db = (await workspaceDb(env as unknown as Bindings, ws.id))!;
    const byName = await compileForWorkspace(db, ws.id, { markdown: 'Hi\n\n::snippet[footer]' });
    const byId = await compileForWorkspace(db, ws.id, {
      blocks: [
        { type: 'paragraph', text: 'Hi' },
        { type: 'snippet', ref: footer.id },
      ],
    });
    expect(byName.compiled_html).toContain('Sent by <strong>Acme</strong>');
    expect(byId.compiled_html).toContain('Sent by <strong>Acme</strong>');

    const unknown = await rejection(compileForWorkspace(db, ws.id, { markdown: '::snippet[Elsewhere]' }));
    expect(unknown.status).toBe(400);
    expect(unknown.bodyOn(ENVELOPE_SURFACE)).toEqual({
      error: { code: 'unknown_snippet', message: 'Unknown snippet "Elsewhere"; available snippets: Footer' },
    });
    const invalid = await rejection(compileForWorkspace(db, ws.id, { markdown: 'a', blocks: [] }));
    expect(invalid.bodyOn(ENVELOPE_SURFACE)).toEqual({
      error: { code: 'invalid_content', message: 'content must have exactly one source; got markdown and blocks' },
    });
  });

  it('snippet create: one name per workspace (case-insensitive), exactly one of markdown or html', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    await adminOk('POST', `/workspaces/${ws.id}/snippets`, { name: 'Legal', html: '<p>Terms</p>' });
    const dup = await admin('POST', `/workspaces/${ws.id}/snippets`, { name: 'legal', markdown: 'x' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('duplicate_name');
    expect((await admin('POST', `/workspaces/${ws.id}/snippets`, { name: 'Both', markdown: 'x', html: 'y' })).status).toBe(400);
    expect((await admin('POST', `/workspaces/${ws.id}/snippets`, { name: 'None' })).status).toBe(400);
    const parallel = await Promise.all(
      Array.from({ length: 5 }, () => admin('POST', `/workspaces/${ws.id}/snippets`, { name: 'Race', markdown: 'x' })),
    );
    expect(parallel.filter((r) => r.status === 201)).toHaveLength(1);
    expect(parallel.filter((r) => r.status === 409)).toHaveLength(4);
  });

  it('the snippets a document references count towards its limits: three distinct ones, each within them, are refused together', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const db = (await workspaceDb(env as unknown as Bindings, ws.id))!;
    // Each snippet is one dense paragraph of 4 million in markup weight, within the 10 million a document may have.
    const dense = '*a '.repeat(1150);
    for (let i = 0; i < 3; i++)
      expect((await admin('POST', `/workspaces/${ws.id}/snippets`, { name: `dense-${i}`, markdown: dense })).status).toBe(201);
    const two = await compileForWorkspace(db, ws.id, { markdown: `Hi\n\n::snippet[dense-0]\n\n::snippet[dense-1]` });
    expect(two.compile.ok).toBe(true);
    const three = await compileForWorkspace(db, ws.id, { markdown: `Hi\n\n${[0, 1, 2].map((i) => `::snippet[dense-${i}]`).join('\n\n')}` }).catch(
      (err: ApiError) => err,
    );
    expect(three).toBeInstanceOf(ApiError);
    const refused = (three as ApiError).bodyOn(ENVELOPE_SURFACE) as { error: { code: string; message: string } };
    expect(refused.error.code).toBe('invalid_content');
    expect(refused.error.message).toMatch(
      /^content's paragraphs, headings and list items and the snippets it references weigh [\d,]+ in inline markup/,
    );
    // A snippet referenced many times is compiled once and counted once.
    const again = await compileForWorkspace(db, ws.id, { markdown: `Hi\n\n${'::snippet[dense-0]\n\n'.repeat(200)}` });
    expect(again.compile.ok).toBe(true);
  });

  it('a stored snippet past the content limits is left out with a warning, however often it is referenced', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const db = (await workspaceDb(env as unknown as Bindings, ws.id))!;
    // Stored before the limits applied: the create route refuses it now.
    const now = new Date().toISOString();
    await db.insert(snippets).values({
      id: crypto.randomUUID(),
      workspaceId: ws.id,
      name: 'Deep',
      nameKey: 'deep',
      markdown: `${'> '.repeat(5000)}a`,
      html: null,
      createdAt: now,
      updatedAt: now,
    });
    const out = await compileForWorkspace(db, ws.id, { markdown: `Hi\n\n${'::snippet[deep]\n\n'.repeat(500)}` });
    expect(out.compile.ok).toBe(true);
    expect(out.compile.warnings).toEqual(['snippet "Deep": markdown: block quotes and lists nest at most 16 levels; line 1 nests 5,000 (left out)']);
    expect(out.plain_text).not.toContain('> >');
  });
});
