import { sql } from 'drizzle-orm';
import { uuidv7 } from '../../platform/ids';
import { preparedSql } from '../../platform/d1/prepared';
import { guardable } from '../../platform/d1/row-guard';

export type Line = {
  productId: string | null;
  title: string;
  sku: string | null;
  quantity: number;
  unitPriceCents: number;
  discountPercent: number | null;
  lineTotalCents: number;
};

/** An order's lines as the one JSON parameter `linesInsert` reads them from (up to 200 lines in one statement). */
export const lineRows = (lines: Line[]): string =>
  JSON.stringify(
    lines.map((l, position) => ({
      id: uuidv7(),
      position,
      product_id: l.productId,
      title: l.title,
      sku: l.sku,
      quantity: l.quantity,
      unit_price_cents: l.unitPriceCents,
      discount_percent: l.discountPercent,
      line_total_cents: l.lineTotalCents,
    })),
  );

/** An order's lines from `lineRows` (placeholder `rows`, the order's `order` and `contact`), in one statement for any number of lines; a guard can hold them back. */
export const linesInsert = guardable((condition) =>
  preparedSql('run', () => {
    const [ws, now, rows] = ['ws', 'now', 'rows'].map((name) => sql.placeholder(name));
    return sql`INSERT INTO order_items (id, workspace_id, order_id, contact_id, position, product_id, external_product_id, title, sku, quantity, unit_price_cents, discount_percent, line_total_cents, created_at)
      SELECT json_extract(j.value, '$.id'), ${ws}, ${sql.placeholder('order')}, ${sql.placeholder('contact')}, json_extract(j.value, '$.position'), json_extract(j.value, '$.product_id'), NULL,
        json_extract(j.value, '$.title'), json_extract(j.value, '$.sku'), json_extract(j.value, '$.quantity'), json_extract(j.value, '$.unit_price_cents'),
        json_extract(j.value, '$.discount_percent'), json_extract(j.value, '$.line_total_cents'), ${now}
      FROM json_each(${rows}) j WHERE ${condition}`;
  }),
);
