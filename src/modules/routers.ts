import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { bookingRoutes } from './bookings/routes';
import { emailCampaignRoutes } from './email-campaigns/routes';
import { newsletterRoutes } from './newsletters/routes';
import { consentRoutes } from './contacts/consent/routes';
import { contactRoutes } from './contacts/routes';
import { dealRoutes } from './deals/routes';
import { noteRoutes } from './notes/routes';
import { orderRoutes } from './orders/routes';
import { paymentRoutes } from './payments/routes';
import { paymentRequestRoutes } from './payment-requests/routes';
import { pipelineRoutes } from './pipelines/routes';
import { productRoutes } from './products/routes';
import { labelRoutes } from './contacts/labels/routes';
import { webhookLogRoutes } from './webhooks/log-routes';
import { webhookRoutes } from './webhooks/routes';
import { whatsappRoutes } from './whatsapp/routes';
import { emailRoutes } from './emails/routes';
import { suppressionRoutes } from './suppressions/routes';
import { audienceRoutes } from './audiences/routes';
import { senderProfileRoutes } from './sender-profiles/routes';

/** Every /v1 resource group, mounted in order by the app. */
export const v1Routers: OpenAPIHono<AppEnv>[] = [
  pipelineRoutes,
  contactRoutes,
  consentRoutes,
  noteRoutes,
  labelRoutes,
  productRoutes,
  dealRoutes,
  paymentRoutes,
  orderRoutes,
  paymentRequestRoutes,
  webhookRoutes,
  webhookLogRoutes,
  bookingRoutes,
  whatsappRoutes,
  emailRoutes,
  suppressionRoutes,
  audienceRoutes,
  senderProfileRoutes,
  emailCampaignRoutes,
  newsletterRoutes,
];
