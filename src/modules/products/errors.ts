import { defineErrors } from '../../platform/errors';

/** Products answer their own errors in the domain envelope (README "Errors"). */
export const ProductErrors = defineErrors('domain', {
  notFound: { status: 404, code: 'product_not_found', message: 'Product not found' },
  conflict: { status: 409, code: 'product_conflict', message: 'A product with this sku or external_id already exists' },
});

/** What deals, payments and orders answer when a product they name cannot be attached: their own framework shape, with `error_code`. */
export const ProductReferenceErrors = defineErrors('framework', {
  invalid: { status: 400, code: 'INVALID_PRODUCT', message: 'The product reference did not resolve to a product of this workspace' },
  inactive: { status: 400, code: 'PRODUCT_INACTIVE', message: 'The product is inactive' },
  invalidLine: { status: 400, code: 'INVALID_PRODUCT', message: '{item}: the product_id did not resolve to a product of this workspace' },
  inactiveLine: { status: 400, code: 'PRODUCT_INACTIVE', message: '{item}: the product is inactive' },
});
