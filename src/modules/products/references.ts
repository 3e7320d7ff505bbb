import { ProductErrors } from './errors';
import type { ProductRow } from './schema';

/** A record naming one product (a deal, a payment): unknown answers 400 `INVALID_PRODUCT`; inactive 400 `PRODUCT_INACTIVE`, unless the record already had it. */
export function attachableProduct(product: ProductRow | undefined, alreadyAttachedId: string | null): ProductRow {
  if (!product) throw ProductErrors.invalidProduct.reference();
  if (!product.isActive && product.id !== alreadyAttachedId) throw ProductErrors.productInactive.reference();
  return product;
}

/**
 * An order line (`item`, e.g. `items[2]`): a `product_id` must name a product (`strict`), while a sku or external id
 * that matches nothing keeps the line's own title; a matched product must be active.
 */
export function lineProduct(product: ProductRow | undefined, strict: boolean, item: string): ProductRow | undefined {
  if (strict && !product) throw ProductErrors.invalidProduct.line({ item });
  if (product && !product.isActive) throw ProductErrors.productInactive.line({ item });
  return product;
}
