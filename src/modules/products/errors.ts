import { defineErrors } from '../../platform/errors';

/** Products answer their own errors in the domain envelope (README "Errors"). */
export const ProductErrors = defineErrors('domain', {
  notFound: { status: 404, code: 'product_not_found', message: 'Product not found' },
  conflict: { status: 409, code: 'product_conflict', message: 'A product with this sku or external_id already exists' },
});
