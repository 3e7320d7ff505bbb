import { defineErrors } from '../../platform/errors';

/** Products, and what deals, payments and orders answer when a product they name cannot be attached. */
export const ProductErrors = defineErrors('ProductErrors', {
  notFound: { status: 404, code: 'product_not_found', message: 'Product not found' },
  conflict: { status: 409, code: 'product_conflict', message: 'A product with this sku or external_id already exists' },
  invalidProduct: {
    status: 400,
    code: 'INVALID_PRODUCT',
    variants: {
      reference: 'The product reference did not resolve to a product of this workspace',
      line: '{item}: the product_id did not resolve to a product of this workspace',
    },
  },
  productInactive: {
    status: 400,
    code: 'PRODUCT_INACTIVE',
    variants: { reference: 'The product is inactive', line: '{item}: the product is inactive' },
  },
});
