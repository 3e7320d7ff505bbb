import { bearer, defineRoute, jsonContent } from '../../platform/openapi';
import { serviceContext } from '../../platform/context';
import { createRouter, idParams } from '../../platform/validation';
import { ContactScore } from './dto';
import { contactScore } from './service';
import { ContactErrors } from '../contacts';

export const scoringRoutes = createRouter();

scoringRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contacts/{id}/score',
    operationId: 'getContactScore',
    tags: ['Contacts'],
    summary: "Explain a contact's lead score",
    description: [
      'The stored `lead_score` with its band, when the engine computed it, and the 20 contributions that weigh most as of then:',
      "each signal's decayed points (with when it happened) and each matching field rule. While scoring is off, `contributions` is empty.",
    ].join(' '),
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(ContactScore, 'The score and why') },
    errors: [ContactErrors.referenceNotFound],
  }),
  async (c) => c.json(await contactScore(serviceContext(c), c.req.valid('param').id.toLowerCase()), 200),
);
