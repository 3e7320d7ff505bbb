import type { Workspace } from '../modules/workspaces/model';
import type { Db } from './db';
import type { EventSink } from './events';

/** What a service needs from the request: the scoped db handle, the caller's workspace and the event sink. */
export type ServiceContext = { db: Db; ws: Workspace; events: EventSink };
