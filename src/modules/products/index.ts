export type { ProductRow } from './schema';
export { pickProduct, productLookup, type ProductReference, productsLookup } from './service';
export { ProductErrors } from './errors';
export { attachableProduct, lineProduct } from './references';
