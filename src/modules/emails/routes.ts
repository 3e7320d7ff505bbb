import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, errorResponses, jsonBody, jsonContent } from '../../platform/openapi';
import { publicBaseUrl } from '../../platform/public-base';
import { createRouter } from '../../platform/validation';
import { EmailSend, EmailSendRecord } from './dto';
import { sendEmail } from './send';

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
      '- The key is claimed before any quota or deliverability gate: a concurrent request with the same key answers 409 `send_in_progress` (retry shortly with the same key). Validation failures and pre-send errors release the key; a claim left by a crash is recoverable after about 3 minutes, and the retry then completes the send and answers 200 `duplicate: true`.',
      '- Consent is the caller\'s responsibility: no consent check, no contact is created.',
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
      ...errorResponses({
        400: { shape: 'domain', description: '`validation_failed`: neither html nor text, a disallowed or invalid header, metadata over 2048 bytes. Shape violations: the standard body' },
        402: { shape: 'domain', description: '`quota_exceeded`: the monthly quota is exhausted' },
        404: { shape: 'domain', description: '`sender_profile_not_found`' },
        409: { shape: 'domain', description: '`send_in_progress` (same key processing; retry shortly with the same key) or `no_verified_sender`' },
        422: { shape: 'domain', description: '`invalid_recipient`' },
        429: { shape: 'domain', description: '`warming_cap_exceeded` (daily domain-warming cap; retry after 00:00 UTC), or the rate limit (standard body, `Retry-After`)' },
        502: { shape: 'domain', description: '`provider_error`: the provider refused; the key is released and safe to retry' },
        503: { shape: 'domain', description: '`workspace_paused`: sending is paused by deliverability protection' },
      }),
    },
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
