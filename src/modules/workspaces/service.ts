import { and, desc, eq, sql, type SQLWrapper } from 'drizzle-orm';
import { type Db, nowIso } from '../../platform/d1/db';
import { failedOn, uniqueOn } from '../../platform/d1/constraints';
import { prepared } from '../../platform/d1/prepared';
import { API_KEY_PREFIX } from '../../platform/auth';
import { base64url, sha256Hex, uuidv7 } from '../../platform/ids';
import { inJsonList } from '../../platform/d1/bound-parameters';
import { FEATURES, type Workspace } from '../../platform/workspace';
import { apiKeys, workspaces, type EmailSettings, type RateLimits, type WorkspaceCaps } from '../../platform/control-schema';
import { requestLog } from '../../platform/schema';
import { users } from './schema';
import { WorkspaceErrors } from './errors';

/** The name of member `userId` of `workspace` (SQL expressions), as SQL for a caller's statement; NULL for none. */
export const memberName = (workspace: SQLWrapper, userId: SQLWrapper) =>
  sql`(SELECT u.name FROM ${users} u WHERE u.id = ${userId} AND u.workspace_id = ${workspace})`;

const activeMemberRead = prepared((db) =>
  db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        eq(users.workspaceId, sql.placeholder('ws')),
        eq(users.id, sql.placeholder('id')),
        eq(users.active, true),
        sql`${users.role} IN ('agent', 'admin')`,
      ),
    )
    .limit(1),
);

/** For a caller's batch: member `userId` when it is active (either role), else no row. */
export const selectActiveMember = (db: Db, workspaceId: string, userId: string) => activeMemberRead.in(db, { ws: workspaceId, id: userId });

/** The workspace's members (`id`, `name`, `active`, `workspace_id`) for a caller's FROM clause. */
export const memberRows = sql`${users}`;

export type WorkspaceInput = {
  name?: string;
  timezone?: string;
  default_country?: string;
  currency?: string;
  api_access?: boolean;
  features?: string[];
  caps?: Partial<Record<keyof WorkspaceCaps, number | null>>;
  lead_scoring?: boolean;
  email?: { monthly_quota?: number | null; daily_warming_cap?: number | null; paused?: boolean };
  rate_limits?: Partial<Record<keyof RateLimits, number | null>>;
  whatsapp_phone_number_id?: string;
  vat?: { mode: 'inclusive' | 'exclusive'; rate: number };
};

/** Merges a partial settings object: a key set to null is removed (back to the default). */
function mergeSettings<T extends object>(current: T, patch: Record<string, unknown> | undefined): T {
  if (!patch) return current;
  const out: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = v;
  }
  return out as T;
}

export function serializeWorkspace(ws: Workspace) {
  return {
    id: ws.id,
    name: ws.name,
    timezone: ws.timezone,
    default_country: ws.defaultCountry,
    currency: ws.currency,
    api_access: ws.apiAccess,
    features: ws.features,
    caps: ws.caps,
    lead_scoring: ws.leadScoring,
    email: ws.email,
    rate_limits: ws.rateLimits,
    whatsapp_phone_number_id: ws.whatsappPhoneNumberId,
    vat: { mode: ws.vatMode, rate: ws.vatRate },
    shard: ws.shard,
    created_at: ws.createdAt,
    updated_at: ws.updatedAt,
  };
}

export async function findWorkspace(db: Db, id: string): Promise<Workspace | null> {
  const [ws] = await db.select().from(workspaces).where(eq(workspaces.id, id)).limit(1);
  return ws ?? null;
}

export async function getWorkspace(db: Db, id: string): Promise<Workspace> {
  const ws = await findWorkspace(db, id);
  if (!ws) throw WorkspaceErrors.notFound();
  return ws;
}

/** The workspace whose WhatsApp phone number id this is (inbound provider webhooks), or null. */
export async function findWorkspaceByWhatsAppNumber(db: Db, phoneNumberId: string): Promise<Workspace | null> {
  const [ws] = await db.select().from(workspaces).where(eq(workspaces.whatsappPhoneNumberId, phoneNumberId)).limit(1);
  return ws ?? null;
}

const numberTaken = uniqueOn(workspaces.whatsappPhoneNumberId);
const memberEmailTaken = uniqueOn(users.workspaceId, users.email);

/** The one unique column an operator writes: inbound WhatsApp notifications find their workspace by it. */
function refuseTakenNumber(err: unknown): never {
  if (failedOn(err, numberTaken)) throw WorkspaceErrors.whatsappNumberTaken();
  throw err;
}

/** A new workspace on `shard` (chosen by the caller: see `placeWorkspace`). `db` is the control plane. */
export async function createWorkspace(db: Db, input: WorkspaceInput & { name: string }, shard: string): Promise<Workspace> {
  const id = uuidv7();
  const now = nowIso();
  const [ws] = await db
    .insert(workspaces)
    .values({
      id,
      name: input.name,
      timezone: input.timezone ?? 'UTC',
      defaultCountry: (input.default_country ?? 'US').toUpperCase(),
      currency: (input.currency ?? 'USD').toUpperCase(),
      apiAccess: input.api_access ?? true,
      features: input.features ?? [...FEATURES],
      caps: mergeSettings<WorkspaceCaps>({}, input.caps),
      leadScoring: input.lead_scoring ?? false,
      email: mergeSettings<EmailSettings>({}, input.email),
      rateLimits: mergeSettings<RateLimits>({}, input.rate_limits),
      whatsappPhoneNumberId: input.whatsapp_phone_number_id ?? id,
      vatMode: input.vat?.mode ?? 'exclusive',
      vatRate: input.vat?.rate ?? 0,
      shard,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .catch(refuseTakenNumber);
  return ws;
}

export async function patchWorkspace(db: Db, id: string, input: WorkspaceInput): Promise<Workspace> {
  const ws = await getWorkspace(db, id);
  const [updated] = await db
    .update(workspaces)
    .set({
      name: input.name ?? ws.name,
      timezone: input.timezone ?? ws.timezone,
      defaultCountry: input.default_country?.toUpperCase() ?? ws.defaultCountry,
      currency: input.currency?.toUpperCase() ?? ws.currency,
      apiAccess: input.api_access ?? ws.apiAccess,
      features: input.features ?? ws.features,
      caps: mergeSettings(ws.caps, input.caps),
      leadScoring: input.lead_scoring ?? ws.leadScoring,
      email: mergeSettings(ws.email, input.email),
      rateLimits: mergeSettings(ws.rateLimits, input.rate_limits),
      whatsappPhoneNumberId: input.whatsapp_phone_number_id ?? ws.whatsappPhoneNumberId,
      vatMode: input.vat?.mode ?? ws.vatMode,
      vatRate: input.vat?.rate ?? ws.vatRate,
      updatedAt: nowIso(),
    })
    .where(eq(workspaces.id, id))
    .returning()
    .catch(refuseTakenNumber);
  return updated;
}

/** A new key: `wsk_` + 32 random bytes (256 bits). Only its SHA-256 is stored. */
export async function createApiKey(db: Db, workspaceId: string, name: string) {
  await getWorkspace(db, workspaceId);
  const key = `${API_KEY_PREFIX}${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  const row = {
    id: uuidv7(),
    workspaceId,
    name,
    keyHash: await sha256Hex(key),
    prefix: key.slice(0, 10),
    createdAt: nowIso(),
    revokedAt: null,
  };
  await db.insert(apiKeys).values(row);
  return { id: row.id, workspace_id: workspaceId, name, key, prefix: row.prefix, created_at: row.createdAt };
}

export async function revokeApiKey(db: Db, keyId: string) {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1);
  if (!row) throw WorkspaceErrors.apiKeyNotFound();
  const revokedAt = row.revokedAt ?? nowIso();
  if (!row.revokedAt) await db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, keyId));
  return { id: row.id, workspace_id: row.workspaceId, name: row.name, prefix: row.prefix, created_at: row.createdAt, revoked_at: revokedAt };
}

/** A member of a workspace the caller has found; `db` is the workspace's data handle. */
export async function createUser(db: Db, workspaceId: string, input: { name: string; email: string; role: 'admin' | 'agent'; active?: boolean }) {
  const now = nowIso();
  const values = {
    id: uuidv7(),
    workspaceId,
    name: input.name,
    email: input.email.trim().toLowerCase(),
    role: input.role,
    active: input.active ?? true,
    createdAt: now,
    updatedAt: now,
  };
  const row = await db
    .insert(users)
    .values(values)
    .returning()
    .then((rows) => rows[0])
    .catch((err) => {
      if (failedOn(err, memberEmailTaken)) throw WorkspaceErrors.userExists();
      throw err;
    });
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    email: row.email,
    role: row.role,
    active: row.active,
    created_at: row.createdAt,
  };
}

/** A workspace member by id, scoped; null when unknown or in another workspace. */
export async function findUser(db: Db, workspaceId: string, userId: string) {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId)))
    .limit(1);
  return row ?? null;
}

/** The newest requests of a workspace the caller has found; `db` is the workspace's data handle. */
export async function readRequestLog(db: Db, workspaceId: string, limit: number) {
  const rows = await db.select().from(requestLog).where(eq(requestLog.workspaceId, workspaceId)).orderBy(desc(requestLog.id)).limit(limit);
  return rows.map((r) => ({
    id: r.id,
    request_id: r.requestId,
    method: r.method,
    path: r.path,
    status: r.status,
    duration_ms: r.durationMs,
    ip: r.ip,
    user_agent: r.userAgent,
    created_at: r.createdAt,
  }));
}

/** Batchable read of the workspace members among `ids` (booking hosts): id, name, active. */
export const selectMembers = (db: Db, workspaceId: string, ids: readonly string[]) =>
  db
    .select({ id: users.id, name: users.name, active: users.active })
    .from(users)
    .where(and(eq(users.workspaceId, workspaceId), inJsonList(users.id, ids)));
