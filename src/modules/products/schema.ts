import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const products = sqliteTable(
  'products',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    name: text('name').notNull(),
    sku: text('sku'),
    externalId: text('external_id'),
    description: text('description'),
    /** Integer cents; null means dynamic pricing. */
    priceCents: integer('price_cents'),
    vatMode: text('vat_mode', { enum: ['inclusive', 'exclusive'] }),
    vatRate: real('vat_rate'),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
    createdBy: text('created_by'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    // Uniqueness is enforced here so concurrent writes cannot both win; NULLs never clash.
    uniqueIndex('products_workspace_sku').on(t.workspaceId, t.sku),
    uniqueIndex('products_workspace_external_id').on(t.workspaceId, t.externalId),
    index('products_workspace_created').on(t.workspaceId, t.createdAt),
  ],
);

export type ProductRow = typeof products.$inferSelect;
