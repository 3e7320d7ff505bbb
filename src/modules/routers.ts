import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { contactRoutes } from './contacts/routes';
import { dealRoutes } from './deals/routes';
import { pipelineRoutes } from './pipelines/routes';
import { productRoutes } from './products/routes';

/** Every /v1 resource group, mounted in order by the app. */
export const v1Routers: OpenAPIHono<AppEnv>[] = [pipelineRoutes, contactRoutes, productRoutes, dealRoutes];
