import type { Workspace } from './workspace';
import type { Db } from './d1/db';
import type { EventSink } from './outbox';

/** What a service needs from the request: the scoped db handle, the caller's workspace and the event sink. */
export type ServiceContext = { db: Db; ws: Workspace; events: EventSink };

/** The service context of a /v1 request (set up by the auth and event middleware). */
export const serviceContext = (c: { var: { db: Db; workspace: Workspace; events: EventSink } }): ServiceContext => ({
  db: c.var.events.watch(c.var.db),
  ws: c.var.workspace,
  events: c.var.events,
});
