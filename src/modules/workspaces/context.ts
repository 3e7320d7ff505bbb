import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { EventSink } from '../../platform/outbox';
import { controlDb, shardDb } from '../../platform/d1/shards';
import { isUuid } from '../../platform/validation';
import { hasFeature, type Feature, type Workspace } from '../../platform/workspace';
import { findWorkspace, getWorkspace } from './service';

/** A service context for work outside a /v1 request (public page, provider webhook, queue consumer, operator route). */
export const contextFor = (env: Bindings, ws: Workspace): ServiceContext => ({ db: shardDb(env, ws.shard, ws.id), ws, events: new EventSink() });

/** The context of a workspace known by id; an unknown id is the 404 of `getWorkspace`. */
export async function workspaceContext(env: Bindings, workspaceId: string): Promise<ServiceContext> {
  return contextFor(env, await getWorkspace(controlDb(env), workspaceId));
}

/**
 * The context behind a public URL's workspace id: null when the id is not a
 * UUID, names no workspace, or the workspace lacks the feature, so every
 * such page answers the same 404.
 */
export async function publicWorkspaceContext(env: Bindings, workspaceId: string, feature?: Feature): Promise<ServiceContext | null> {
  if (!isUuid(workspaceId)) return null;
  const ws = await findWorkspace(controlDb(env), workspaceId.toLowerCase());
  if (!ws || (feature && !hasFeature(ws, feature))) return null;
  return contextFor(env, ws);
}
