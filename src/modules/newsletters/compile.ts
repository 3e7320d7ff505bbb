import type { ServiceContext } from '../../platform/context';
import { domainError } from '../../platform/errors';
import { compileContent, isCompiled, type CompileEnvelope, type Compiled } from '../content/compile';

export type { CompileEnvelope };

/** The `compile` envelope of a write that did not touch the content. */
export const NOT_PATCHED: CompileEnvelope = { ok: true, errors: [], warnings: [] };

/**
 * Compiles issue content with the shared content compiler (src/modules/content):
 * a failed compile is the write's 400, with the first error's code
 * (`invalid_content` or `unknown_snippet`) and message.
 */
export async function compileIssue(_ctx: ServiceContext, content: unknown, opts: { title: string | null; preheader: string | null }): Promise<Compiled> {
  const out = compileContent(content, { title: opts.title, preheader: opts.preheader, snippets: [] });
  if (!isCompiled(out)) {
    const first = out.compile.errors[0] ?? { code: 'invalid_content', message: 'content could not be compiled' };
    throw domainError(400, first.code, out.compile.errors.map((e) => e.message).join('; ') || first.message);
  }
  return out;
}
