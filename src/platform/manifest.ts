import { getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import type { AdminEnv, Bindings } from '../env';
import type { AppEnv } from './app-env';
import type { Db, Statement } from './d1/db';
import type { EventListener, EventPublisher, SubscriptionCheck } from './outbox';
import type { FeatureGate } from './features';
import type { PersonalData, TagsLinked } from './personal-data';
import type { SignalHooks } from './signals';
import type { FileUpload } from './uploads';

/** What one pass of a sweep did on one shard: counts by name, added up over the shards. */
export type SweepResult = Record<string, number>;
/**
 * One pass over one shard; each pass bounds its own work (a batch size), so a big shard never starves the others.
 * `db` spans the shard: a sweep names the workspaces it wrote with `wroteFor` (./d1/floors.ts).
 */
export type Sweep = (env: Bindings, db: Db) => Promise<SweepResult>;

export type QueueMessageBody = { kind: string } & Record<string, unknown>;
/** Takes all of a batch's messages of one kind at once and acknowledges or retries each (a message settles once: its first `ack` or `retry` holds). */
export type QueueBatchHandler = (messages: Message<QueueMessageBody>[], env: Bindings) => Promise<void>;
/**
 * How the consumers handle one message kind. `run` gets each message's body and acknowledges it when it
 * returns (a throw retries it); with `inTurn` a batch's messages of the kind run one after another, in the
 * order delivered, for kinds whose message is a large unit of work (a campaign page). `runBatch` takes the
 * batch's messages of the kind together, for kinds that share one read and one write among many.
 */
export type QueueTask =
  | { kind: string; run: (env: Bindings, body: never) => Promise<void>; inTurn?: boolean }
  | { kind: string; runBatch: QueueBatchHandler };

/** Routes outside `/v1` (hosted pages, tracking links, provider webhooks): no API key, their own checks. */
export type PublicRoute = { path: string; app: Hono<AppEnv> | Hono<AdminEnv> };

/**
 * Counts a provider fact about one of a module's email sends in the batch that records the fact. The email
 * module defines the send and the fact; the method form lets a counter declare them as that module's types.
 */
export type EmailFactCounter = { count(db: Db, send: object, fact: object): Statement | null }['count'];

/** What a module hands the composition root (src/wiring.ts): declared, never registered by importing it. */
export type ModuleManifest = {
  /** The module's folder under src/modules. */
  name: string;
  /** Its `/v1` routers, in mount order. */
  routes?: OpenAPIHono<AppEnv>[];
  /** Pages, tracking links and provider webhooks, in mount order. */
  publicRoutes?: PublicRoute[];
  /** Registers what the API reference documents beyond the routers' own operations (public routes, webhook payloads). */
  docs?: (registry: OpenAPIRegistry) => void;
  /** Periodic work by name: the names the operator API runs them by (`POST /admin/v1/sweeps/{name}`). */
  sweeps?: Record<string, Sweep>;
  queueTasks?: QueueTask[];
  /** The `/v1` prefixes of its routes that a plan's feature unlocks. */
  featureGates?: FeatureGate[];
  /** Its `/v1` routes whose body is a file rather than JSON. */
  fileUploads?: FileUpload[];
  /** How committed events leave (the webhook fan-out); one module provides it. */
  eventPublisher?: EventPublisher;
  /** Whether an event has a subscriber, evaluated inside the emitting batch; one module provides it. */
  subscriptionCheck?: SubscriptionCheck;
  /** How it reacts to committed events besides the webhook endpoints (./outbox.ts). */
  eventListener?: EventListener;
  /** Counters of provider facts about its email sends, by the sends' `source`. */
  emailFactCounters?: Record<string, EmailFactCounter>;
  /** How lead-scoring signals are recorded in the batches they happen in, and scored after them (./signals.ts); one module provides it. */
  signals?: SignalHooks;
  /** The rows it holds about people: moved by a contact merge, erased, exported (./personal-data.ts). */
  personalData?: PersonalData;
  /** Statements joining the batch that links tags to a contact. */
  tagsLinked?: TagsLinked;
  /**
   * Its tables a workspace move does not copy, each with why (./d1/workspace-moves/inventory.ts): rows the
   * target's triggers derive from copied rows, or rows no workspace owns. Every other table with a
   * `workspace_id` is moved without being named.
   */
  notMoved?: { table: SQLiteTable; why: string }[];
};

/** Where the contract fixes an order other than the manifests' own: the public docs and the sweeps, as manifests. */
export type ManifestOrder = { docs: readonly ModuleManifest[]; sweeps: readonly ModuleManifest[] };

/** The manifests gathered: what the app, the Worker's handlers, the sweeps, the feature gate and the event outbox read. */
export type Wiring = {
  manifests: readonly ModuleManifest[];
  routes: OpenAPIHono<AppEnv>[];
  publicRoutes: PublicRoute[];
  docs: ((registry: OpenAPIRegistry) => void)[];
  sweeps: ReadonlyMap<string, Sweep>;
  queueTasks: QueueTask[];
  featureGates: FeatureGate[];
  fileUploads: FileUpload[];
  eventPublisher: EventPublisher | null;
  subscriptionCheck: SubscriptionCheck | null;
  eventListeners: EventListener[];
  signals: SignalHooks | null;
  emailFactCounters: ReadonlyMap<string, EmailFactCounter>;
  personalData: PersonalData[];
  tagsLinked: TagsLinked[];
  /** The tables a workspace move leaves out, by name, with why. */
  notMoved: ReadonlyMap<string, string>;
};

/**
 * Gathers `manifests` (routes, public routes, queue tasks and gates in the manifests' order; docs and sweeps in
 * `order`'s). Throws on what would otherwise be lost silently: a name declared twice, a second provider of a
 * one-provider hook, a manifest with docs or sweeps missing from `order`.
 */
export function composeManifests(manifests: readonly ModuleManifest[], order: ManifestOrder): Wiring {
  unique(
    'module',
    manifests.map((m) => m.name),
  );
  for (const field of ['docs', 'sweeps'] as const) {
    const declaring = manifests.filter((m) => m[field]);
    const ordered = order[field];
    const missing = declaring.filter((m) => !ordered.includes(m)).map((m) => m.name);
    if (missing.length) throw new Error(`${field} of ${missing.join(', ')} missing from the ${field} order`);
    const stray = ordered.filter((m) => !declaring.includes(m)).map((m) => m.name);
    if (stray.length) throw new Error(`the ${field} order names ${stray.join(', ')}, which declare no ${field} or are not wired`);
    unique(
      `${field} order entry`,
      ordered.map((m) => m.name),
    );
  }
  const sweeps = order.sweeps.flatMap((m) => Object.entries(m.sweeps!));
  unique(
    'sweep',
    sweeps.map(([name]) => name),
  );
  const counters = manifests.flatMap((m) => Object.entries(m.emailFactCounters ?? {}));
  unique(
    'email fact counter source',
    counters.map(([source]) => source),
  );
  return {
    manifests,
    routes: manifests.flatMap((m) => m.routes ?? []),
    publicRoutes: manifests.flatMap((m) => m.publicRoutes ?? []),
    docs: order.docs.map((m) => m.docs!),
    sweeps: new Map(sweeps),
    queueTasks: manifests.flatMap((m) => m.queueTasks ?? []),
    featureGates: manifests.flatMap((m) => m.featureGates ?? []),
    fileUploads: manifests.flatMap((m) => m.fileUploads ?? []),
    eventPublisher: single(manifests, 'eventPublisher'),
    subscriptionCheck: single(manifests, 'subscriptionCheck'),
    eventListeners: manifests.flatMap((m) => (m.eventListener ? [m.eventListener] : [])),
    signals: single(manifests, 'signals'),
    emailFactCounters: new Map(counters),
    personalData: manifests.flatMap((m) => (m.personalData ? [m.personalData] : [])),
    notMoved: new Map(manifests.flatMap((m) => (m.notMoved ?? []).map(({ table, why }) => [getTableName(table), why] as const))),
    tagsLinked: manifests.flatMap((m) => (m.tagsLinked ? [m.tagsLinked] : [])),
  };
}

function unique(what: string, names: string[]): void {
  const twice = names.filter((name, i) => names.indexOf(name) !== i);
  if (twice.length) throw new Error(`${what} "${twice[0]}" is declared twice`);
}

function single<K extends 'eventPublisher' | 'subscriptionCheck' | 'signals'>(
  manifests: readonly ModuleManifest[],
  field: K,
): NonNullable<ModuleManifest[K]> | null {
  const providers = manifests.filter((m) => m[field]);
  if (providers.length > 1) throw new Error(`${field} is provided by ${providers.map((m) => m.name).join(' and ')}; one module provides it`);
  return providers[0]?.[field] ?? null;
}
