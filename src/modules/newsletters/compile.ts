import type { ServiceContext } from '../../platform/context';
import { type CompileEnvelope, type Compiled, compileForWorkspace } from '../content';

export type { CompileEnvelope };

/** The `compile` envelope of a write that did not touch the content. */
export const NOT_PATCHED: CompileEnvelope = { ok: true, errors: [], warnings: [] };

/** Compiles issue content against the workspace's snippets; a failed compile is the write's 400. */
export function compileIssue(ctx: ServiceContext, content: unknown, opts: { title: string | null; preheader: string | null }): Promise<Compiled> {
  return compileForWorkspace(ctx.db, ctx.ws.id, content, opts);
}
