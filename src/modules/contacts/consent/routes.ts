import { z } from '@hono/zod-openapi';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../../platform/openapi';
import { createRouter, uuid } from '../../../platform/validation';
import { serviceContext } from '../../../platform/context';
import { CHANNELS, type Channel } from '../schema';
import { Consent, ConsentWrite } from './dto';
import { consentAnswer, getConsent, setConsent } from './service';
import { ConsentErrors } from './errors';
import { SharedErrors } from '../../../platform/shared-errors';

export const consentRoutes = createRouter();

const contactParam = z.object({ id: uuid('id').openapi({ param: { name: 'id', in: 'path' } }) });
const channelParams = contactParam.extend({
  channel: z.string().openapi({
    param: { name: 'channel', in: 'path' },
    type: 'string',
    enum: [...CHANNELS],
    description: '`whatsapp` or `email`; another value answers 400 `invalid_channel`',
  }),
});

consentRoutes.openapi(
  defineRoute({
    method: 'get',
    operationId: 'getContactConsent',
    path: '/contacts/{id}/consent',
    tags: ['Consent'],
    summary: "A contact's consent on both channels",
    security: bearer,
    request: { params: contactParam },
    responses: { 200: jsonContent(Consent, 'Consent') },
    errors: [SharedErrors.invalidRequest, ConsentErrors.contactNotFound],
  }),
  async (c) => c.json(await getConsent(c.env, serviceContext(c), c.req.valid('param').id.toLowerCase()), 200),
);

consentRoutes.openapi(
  defineRoute({
    method: 'put',
    operationId: 'setContactConsent',
    path: '/contacts/{id}/consent/{channel}',
    tags: ['Consent'],
    summary: 'Record a consent decision with its evidence',
    description:
      'Writes a consent-ledger row (the evidence) on every call; a changed decision emits `contact.consent_changed`, a re-assertion ' +
      'of the current state does not. A channel with a spam complaint on record keeps its consent.',
    security: bearer,
    request: {
      params: channelParams,
      body: jsonBody(ConsentWrite, {
        state: 'subscribed',
        source: 'signup_form',
        basis: 'consent',
        evidence: { ip: '203.0.113.7', form: 'newsletter' },
      }),
    },
    responses: { 200: jsonContent(Consent, 'Consent after the write') },
    errors: [ConsentErrors.invalidChannel, SharedErrors.invalidRequest, ConsentErrors.contactNotFound, ConsentErrors.stickyComplained],
  }),
  async (c) => {
    const { id, channel } = c.req.valid('param');
    if (!(CHANNELS as readonly string[]).includes(channel)) {
      throw ConsentErrors.invalidChannel({ channel: channel.slice(0, 50) });
    }
    return c.json(await consentAnswer(c.env, await setConsent(serviceContext(c), id.toLowerCase(), channel as Channel, c.req.valid('json'))), 200);
  },
);
