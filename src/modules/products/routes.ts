import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { createRouter, idParams } from '../../platform/validation';
import { Product, ProductCreate, ProductCreated, ProductList, ProductListQuery, ProductPatch } from './dto';
import { createProduct, getProduct, listProducts, patchProduct } from './service';
import { ProductErrors } from './errors';

export const productRoutes = createRouter();
const tags = ['Products'];

productRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/products',
    operationId: 'listProducts',
    tags,
    summary: 'List products',
    description: 'Newest first. Filters combine with AND.',
    security: bearer,
    request: { query: ProductListQuery },
    responses: { 200: jsonContent(ProductList, 'A page of products') },
  }),
  async (c) => c.json(await listProducts(serviceContext(c), c.req.valid('query')), 200),
);

productRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/products/{id}',
    operationId: 'getProduct',
    tags,
    summary: 'Get a product',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Product, 'The product') },
    errors: [ProductErrors.notFound],
  }),
  async (c) => c.json(await getProduct(serviceContext(c), c.req.valid('param').id.toLowerCase()), 200),
);

productRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/products',
    operationId: 'createProduct',
    tags,
    summary: 'Create a product (upsert by external_id)',
    description: 'When `external_id` matches an existing product that product is updated with the fields sent; 201 both ways with `duplicate`.',
    security: bearer,
    request: {
      body: jsonBody(ProductCreate, {
        name: 'Annual plan',
        sku: 'PLAN-Y',
        external_id: 'shop-1042',
        price: 990,
        vat_mode: 'inclusive',
        vat_rate: 25,
      }),
    },
    responses: { 201: jsonContent(ProductCreated, 'Created or matched product') },
    errors: [ProductErrors.conflict],
  }),
  async (c) => c.json(await createProduct(serviceContext(c), c.req.valid('json')), 201),
);

productRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/products/{id}',
    operationId: 'updateProduct',
    tags,
    summary: 'Update a product',
    description: 'Partial: only present fields change. Deactivate with `is_active: false` (there is no DELETE).',
    security: bearer,
    request: { params: idParams, body: jsonBody(ProductPatch, { price: 1090, is_active: false }) },
    responses: { 200: jsonContent(Product, 'The updated product') },
    errors: [ProductErrors.notFound, ProductErrors.conflict],
  }),
  async (c) => c.json(await patchProduct(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 200),
);
