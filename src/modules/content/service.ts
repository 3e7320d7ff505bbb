import { asc, eq } from 'drizzle-orm';
import { nowIso, type Db } from '../../platform/d1/db';
import { ContentErrors } from './errors';
import { uuidv7 } from '../../platform/ids';
import { compileContent, isCompiled, snippetProblems, type Compiled, type CompileOptions, type Snippet } from './compile';
import { snippets } from './schema';

/** The workspace's snippets, as the compiler resolves them (a workspace holds a handful). */
export async function loadSnippets(db: Db, workspaceId: string): Promise<Snippet[]> {
  const rows = await db
    .select({ id: snippets.id, name: snippets.name, markdown: snippets.markdown, html: snippets.html })
    .from(snippets)
    .where(eq(snippets.workspaceId, workspaceId))
    .orderBy(asc(snippets.nameKey))
    .limit(500);
  return rows;
}

/**
 * Compiles `content` against the workspace's snippets; a rejected compile is
 * the domain error its first error names: 400 `invalid_content` (all
 * messages joined) or 400 `unknown_snippet`.
 */
export async function compileForWorkspace(
  db: Db,
  workspaceId: string,
  content: unknown,
  opts: Omit<CompileOptions, 'snippets'> = {},
): Promise<Compiled> {
  let result = compileContent(content, { ...opts, snippets: [] });
  // Content without snippet references compiles without a round trip to the snippets table.
  if (!isCompiled(result) && result.compile.errors.some((e) => e.code === 'unknown_snippet')) {
    result = compileContent(content, { ...opts, snippets: await loadSnippets(db, workspaceId) });
  }
  if (isCompiled(result)) return result;
  const errors = result.compile.errors;
  const code = errors[0]?.code ?? 'invalid_content';
  const problems = errors
    .filter((e) => e.code === code)
    .map((e) => e.message)
    .join('; ');
  if (code === 'unknown_snippet') throw ContentErrors.unknownSnippet({ problems });
  throw problems ? ContentErrors.invalidContent.problems({ problems }) : ContentErrors.invalidContent.unnamed();
}

/**
 * Operator route: creates a snippet (`markdown` or `html`). Content past the
 * compiler's cost limits is 400 `invalid_content` (it could never be
 * compiled); a taken name is 409 `duplicate_name`.
 */
export async function createSnippet(db: Db, workspaceId: string, input: { name: string; markdown?: string; html?: string }) {
  const problems = snippetProblems({ markdown: input.markdown ?? null, html: input.html ?? null });
  if (problems.length) throw ContentErrors.invalidContent.problems({ problems: problems.join('; ') });
  const now = nowIso();
  const row = {
    id: uuidv7(),
    workspaceId,
    name: input.name,
    nameKey: input.name.toLowerCase(),
    markdown: input.markdown ?? null,
    html: input.html ?? null,
    createdAt: now,
    updatedAt: now,
  };
  const [created] = await db.insert(snippets).values(row).onConflictDoNothing().returning();
  if (!created) throw ContentErrors.duplicateName.snippet({ name: input.name });
  return {
    id: created.id,
    workspace_id: created.workspaceId,
    name: created.name,
    markdown: created.markdown,
    html: created.html,
    created_at: created.createdAt,
    updated_at: created.updatedAt,
  };
}
