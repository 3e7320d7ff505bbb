import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonContent } from '../../platform/openapi';
import { SharedErrors } from '../../platform/shared-errors';
import { createRouter, idParams } from '../../platform/validation';
import { EmailErrors } from './errors';
import { getSentEmail, listSentEmails } from './sent';
import { EmailSent, EmailSentList, EmailSentListQuery } from './sent-dto';

export const emailReadRoutes = createRouter();
const tags = ['Transactional email'];

emailReadRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/emails',
    operationId: 'listEmails',
    tags,
    summary: 'List sent emails',
    description: [
      'The sends made through `POST /v1/emails`, newest `created_at` first, each as `GET /v1/emails/{id}` answers it.',
      '`to`, `status`, `since` (`created_at >= since`), `until` (`created_at < until`) and `idempotency_key` combine with AND; malformed values answer 400.',
    ].join(' '),
    security: bearer,
    request: { query: EmailSentListQuery },
    responses: { 200: jsonContent(EmailSentList, 'A page of sent emails') },
    errors: [SharedErrors.notOneOf, EmailErrors.invalidDateFilter],
  }),
  async (c) => c.json(await listSentEmails(serviceContext(c), c.req.valid('query')), 200),
);

emailReadRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/emails/{id}',
    operationId: 'getEmail',
    tags,
    summary: 'Get a sent email with its delivery and engagement events',
    description:
      'The send as `POST /v1/emails` accepted it, its `status`, the first delivery, bounce, complaint, open and click recorded for it with their times, and `last_event`.',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(EmailSent, 'The sent email') },
    errors: [EmailErrors.notFound],
  }),
  async (c) => c.json(await getSentEmail(serviceContext(c), c.req.valid('param').id), 200),
);
