import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { publicBaseUrl } from '../../platform/public-base';
import { createRouter } from '../../platform/validation';
import { EmailSend, EmailSendRecord } from './dto';
import { sendEmail } from './send';
import { EmailErrors } from './errors';
import { SenderProfileErrors } from '../sender-profiles';

export const emailRoutes = createRouter();

emailRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/emails',
    operationId: 'sendEmail',
    tags: ['Transactional email'],
    summary: 'Send one transactional email',
    description: [
      'Sends through a sender profile on a verified sending domain; content is delivered verbatim (no footer, no unsubscribe link, no tracking unless opted in).',
      '',
      '- 201 when this request performed the send, 200 with `duplicate: true` for a replay of a processed key (the first answer: `sent` stays `sent`, `suppressed` stays `suppressed`).',
      '- A suppressed recipient (the workspace list or the platform list) answers 2xx with `status: suppressed`, `reason: suppressed`, and nothing is sent.',
      '- The key is claimed before any quota or deliverability gate: a concurrent request with the same key answers 409 `send_in_progress` ' +
        '(retry shortly with the same key). Validation failures and pre-send errors release the key; a claim left by a crash is recoverable ' +
        'after about 3 minutes, and the retry then completes the send and answers 200 `duplicate: true`.',
      "- Consent is the caller's responsibility: no consent check, no contact is created.",
      '- Rate limit: 300 requests per minute per key, separate from the general limit.',
    ].join('\n'),
    security: bearer,
    request: {
      body: jsonBody(EmailSend, {
        to: 'ada@example.com',
        subject: 'Your receipt',
        html: '<p>Thanks for your order! <a href="https://shop.example.com/orders/1042">View it</a></p>',
        idempotency_key: 'receipt-1042',
        metadata: { order_id: 1042 },
        tracking: { opens: true, clicks: true },
      }),
    },
    responses: {
      201: jsonContent(EmailSendRecord, 'This request performed the send (or found the recipient suppressed)'),
      200: jsonContent(EmailSendRecord, 'A replay of an already processed key: the first answer with `duplicate: true`'),
    },
    bodyKey: { field: 'idempotency_key', mismatch: EmailErrors.validationFailed.keyMismatch },
    errors: [
      EmailErrors.validationFailed.noContent,
      EmailErrors.validationFailed.headerNotAllowed,
      EmailErrors.validationFailed.headerNotString,
      EmailErrors.validationFailed.headerTooLong,
      EmailErrors.validationFailed.headerControl,
      EmailErrors.validationFailed.headerEmpty,
      EmailErrors.validationFailed.metadataTooLarge,
      EmailErrors.quotaExceeded,
      SenderProfileErrors.notFound.email,
      EmailErrors.sendInProgress,
      EmailErrors.noVerifiedSender.none,
      EmailErrors.noVerifiedSender.noValidAddress,
      EmailErrors.invalidRecipient,
      EmailErrors.warmingCapExceeded,
      EmailErrors.providerError,
      EmailErrors.workspacePaused,
    ],
  }),
  async (c) => {
    const body = c.req.valid('json');
    const { record, fresh, bookmark } = await sendEmail(
      { ...serviceContext(c), env: c.env, baseUrl: publicBaseUrl(c.env, c.req.url), sessionBookmark: c.var.sessionBookmark },
      {
        to: body.to,
        message: { subject: body.subject, html: body.html, text: body.text, headers: body.headers },
        senderProfileId: body.sender_profile_id?.toLowerCase(),
        replyTo: body.reply_to?.toLowerCase(),
        idempotencyKey: body.idempotency_key,
        tracking: body.tracking,
        metadata: body.metadata,
        source: 'api',
      },
    );
    if (bookmark) c.set('storedBookmark', bookmark);
    // API sends always carry their key.
    return c.json({ ...record, idempotency_key: body.idempotency_key }, fresh ? 201 : 200);
  },
);
