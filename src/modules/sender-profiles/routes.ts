import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonContent } from '../../platform/openapi';
import { createRouter } from '../../platform/validation';
import { SenderProfileList, SenderProfileListQuery } from './dto';
import { listSenderProfiles } from './service';

export const senderProfileRoutes = createRouter();

senderProfileRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/sender-profiles',
    operationId: 'listSenderProfiles',
    tags: ['Sender profiles'],
    summary: 'List sender profiles',
    description:
      'Newest first. The ids are valid as `sender_profile_id` for transactional sends and email campaigns; prefer `verified: true`. ' +
      'DKIM and DNS material is never returned. Not writable through the API.',
    security: bearer,
    request: { query: SenderProfileListQuery },
    responses: { 200: jsonContent(SenderProfileList, 'A page of sender profiles') },
  }),
  async (c) => c.json(await listSenderProfiles(serviceContext(c), c.req.valid('query')), 200),
);
