import { and, desc, eq, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { failedOn, uniqueOn } from '../../platform/d1/constraints';
import { uuidv7 } from '../../platform/ids';
import { containsInAny, envelope, parseBooleanParam, parsePaging, searchParam } from '../../platform/list';
import { fromCents, toCents } from '../../platform/money';
import { prepared } from '../../platform/d1/prepared';
import type { ProductCreateInput, ProductPatchInput } from './dto';
import { products, type ProductRow } from './schema';
import { ProductErrors } from './errors';

const skuOrExternalIdTaken = [uniqueOn(products.workspaceId, products.sku), uniqueOn(products.workspaceId, products.externalId)];

export function serializeProduct(p: ProductRow) {
  return {
    id: p.id,
    workspace_id: p.workspaceId,
    name: p.name,
    sku: p.sku,
    external_id: p.externalId,
    description: p.description,
    price: p.priceCents === null ? null : fromCents(p.priceCents),
    vat_mode: p.vatMode,
    vat_rate: p.vatRate,
    is_active: p.isActive,
    created_by: p.createdBy,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

/** Only the fields present in the input, as column values. */
function presentColumns(input: ProductPatchInput): Partial<ProductRow> {
  const out: Partial<ProductRow> = {};
  if (input.name !== undefined) out.name = input.name;
  if (input.sku !== undefined) out.sku = input.sku;
  if (input.external_id !== undefined) out.externalId = input.external_id;
  if (input.description !== undefined) out.description = input.description;
  if (input.price !== undefined) out.priceCents = input.price === null ? null : toCents(input.price);
  if (input.vat_mode !== undefined) out.vatMode = input.vat_mode;
  if (input.vat_rate !== undefined) out.vatRate = input.vat_rate;
  if (input.is_active !== undefined) out.isActive = input.is_active;
  return out;
}

async function mapConflict<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (failedOn(err, ...skuOrExternalIdTaken)) throw ProductErrors.conflict();
    throw err;
  }
}

/**
 * Creates a product, or updates the one holding the same `external_id`. The
 * upsert is a single `INSERT ... ON CONFLICT` so concurrent creates of one
 * external id end as one product; any other clash (sku, or an external id
 * raced in through PATCH) is a `product_conflict`.
 */
export async function createProduct(ctx: ServiceContext, input: ProductCreateInput) {
  const now = nowIso();
  const id = uuidv7();
  const columns = presentColumns(input);
  const row: ProductRow = {
    id,
    workspaceId: ctx.ws.id,
    name: input.name,
    sku: null,
    externalId: null,
    description: null,
    priceCents: null,
    vatMode: null,
    vatRate: null,
    isActive: true,
    createdBy: null,
    createdAt: now,
    updatedAt: now,
    ...columns,
  };
  const insert = ctx.db.insert(products).values(row);
  const [saved] = await mapConflict(
    row.externalId === null
      ? insert.returning()
      : insert.onConflictDoUpdate({ target: [products.workspaceId, products.externalId], set: { ...columns, updatedAt: now } }).returning(),
  );
  return { ...serializeProduct(saved), duplicate: saved.id !== id };
}

export async function patchProduct(ctx: ServiceContext, id: string, input: ProductPatchInput) {
  const [saved] = await mapConflict(
    ctx.db
      .update(products)
      .set({ ...presentColumns(input), updatedAt: nowIso() })
      .where(and(eq(products.workspaceId, ctx.ws.id), eq(products.id, id)))
      .returning(),
  );
  if (!saved) throw ProductErrors.notFound();
  return serializeProduct(saved);
}

export async function getProduct(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select()
    .from(products)
    .where(and(eq(products.workspaceId, ctx.ws.id), eq(products.id, id)))
    .limit(1);
  if (!row) throw ProductErrors.notFound();
  return serializeProduct(row);
}

export type ProductListParams = { q?: string; sku?: string; external_id?: string; is_active?: string; limit?: string; offset?: string };

/** Newest first; the total and the page are read in one batch. */
export async function listProducts(ctx: ServiceContext, params: ProductListParams) {
  const paging = parsePaging(params, { limit: 50, cap: 500 });
  const isActive = parseBooleanParam('is_active', params.is_active);
  const conditions: SQL[] = [eq(products.workspaceId, ctx.ws.id)];
  const q = searchParam('q', params.q);
  if (q !== undefined && q !== '') {
    // instr() matches the text literally, so `%` and `_` are never wildcards.
    // Both sides go through SQLite's lower() so the case folding always agrees.
    conditions.push(containsInAny(q, [products.name, products.description]));
  }
  if (params.sku !== undefined) conditions.push(eq(products.sku, params.sku));
  if (params.external_id !== undefined) conditions.push(eq(products.externalId, params.external_id));
  if (isActive !== undefined) conditions.push(eq(products.isActive, isActive));
  const where = and(...conditions);
  const [[{ total }], rows] = await ctx.db.batch([
    ctx.db.select({ total: sql<number>`count(*)` }).from(products).where(where),
    ctx.db.select().from(products).where(where).orderBy(desc(products.createdAt), desc(products.id)).limit(paging.limit).offset(paging.offset),
  ]);
  return envelope(rows.map(serializeProduct), total, paging);
}

/** Products resolved for other modules (deals, payments): the first reference given wins. */
export type ProductReference = { product_id?: string; product_sku?: string; product_external_id?: string };

/** The product a reference points at (first provided wins), as a query to batch; none given matches nothing. */
export function productLookup(ctx: ServiceContext, ref: ProductReference) {
  const match =
    ref.product_id !== undefined
      ? eq(products.id, ref.product_id)
      : ref.product_sku !== undefined
        ? eq(products.sku, ref.product_sku)
        : ref.product_external_id !== undefined
          ? eq(products.externalId, ref.product_external_id)
          : sql`0`;
  return ctx.db
    .select()
    .from(products)
    .where(and(eq(products.workspaceId, ctx.ws.id), match))
    .limit(1);
}

/**
 * Every product any of `refs` points at (each reference's first given key), in
 * one query to batch, for records with many lines (order items); `pickProduct`
 * finds a reference's row among them.
 */
const inList = (column: SQLWrapper, name: string) => sql`${column} IN (SELECT value FROM json_each(${sql.placeholder(name)}))`;
const productsByReference = prepared((db) =>
  db
    .select()
    .from(products)
    .where(
      and(
        eq(products.workspaceId, sql.placeholder('ws')),
        or(inList(products.id, 'ids'), inList(products.sku, 'skus'), inList(products.externalId, 'externalIds')),
      ),
    ),
);

export function productsLookup(ctx: ServiceContext, refs: ProductReference[]) {
  const ids: string[] = [];
  const skus: string[] = [];
  const externalIds: string[] = [];
  for (const ref of refs) {
    if (ref.product_id !== undefined) ids.push(ref.product_id);
    else if (ref.product_sku !== undefined) skus.push(ref.product_sku);
    else if (ref.product_external_id !== undefined) externalIds.push(ref.product_external_id);
  }
  return productsByReference.in(ctx.db, {
    ws: ctx.ws.id,
    ids: JSON.stringify(ids),
    skus: JSON.stringify(skus),
    externalIds: JSON.stringify(externalIds),
  });
}

/** The row of `rows` a reference points at (first given key), if any. */
export function pickProduct(rows: ProductRow[], ref: ProductReference): ProductRow | undefined {
  if (ref.product_id !== undefined) return rows.find((p) => p.id === ref.product_id);
  if (ref.product_sku !== undefined) return rows.find((p) => p.sku === ref.product_sku);
  if (ref.product_external_id !== undefined) return rows.find((p) => p.externalId === ref.product_external_id);
  return undefined;
}
