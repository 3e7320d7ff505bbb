import type { Bindings } from '../env';
import type { Db } from './d1/db';
import type { EventSink } from './outbox';
import type { Workspace } from './workspace';

/** What the platform's middleware sets on a request (src/app.ts), for the routes after it. */
interface Variables {
  db: Db;
  workspace: Workspace;
  apiKeyId: string;
  routeMatched: boolean;
  /** The request's `X-Request-Id` (src/platform/request-id.ts). */
  requestId: string;
  events: EventSink;
  /** The bookmark of what the request's session has read or written so far (null before its first query). */
  sessionBookmark: () => string | null;
  /** An answer replayed from storage outside D1 (an email key's claim): the bookmark recorded with it, as the session read nothing. */
  storedBookmark?: string;
  /** Set while a read runs before its rate limit answered: settles when it did, rejecting when refused (src/platform/auth.ts). */
  admission?: Promise<unknown>;
  /** The request's write reached a moving workspace's old shard and was refused whole there: nothing was written, so no floor moves. */
  fenced?: boolean;
}

/** The variables are made of platform types, so this is declared here and src/env.ts holds the bindings alone. */
export type AppEnv = { Bindings: Bindings; Variables: Variables };
