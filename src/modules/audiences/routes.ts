import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonContent } from '../../platform/openapi';
import { createRouter } from '../../platform/validation';
import { AudienceList, AudienceListQuery } from './dto';
import { listAudiences } from './service';

export const audienceRoutes = createRouter();

audienceRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/audiences',
    operationId: 'listAudiences',
    tags: ['Audiences'],
    summary: 'List audiences',
    description:
      'Newest first. The ids are valid as `audience_id` for email and WhatsApp campaigns. ' +
      'The stored definition is never returned; `last_count` is an advisory size cache. Not writable through the API.',
    security: bearer,
    request: { query: AudienceListQuery },
    responses: { 200: jsonContent(AudienceList, 'A page of audiences') },
  }),
  async (c) => c.json(await listAudiences(serviceContext(c), c.req.valid('query')), 200),
);
