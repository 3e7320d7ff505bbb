export type { ProductRow } from './schema';
export { pickProduct, productLookup, type ProductReference, productsLookup } from './service';
export { attachableProduct, lineProduct, ProductReferenceErrors } from './references';
