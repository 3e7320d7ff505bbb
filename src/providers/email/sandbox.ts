import { sql } from 'drizzle-orm';
import { nowIso, runBatch } from '../../platform/db';
import { uuidv7 } from '../../platform/ids';
import { rawAll, rawRun } from '../../platform/raw-query';
import { type EmailProvider, ProviderRejected } from './types';

/** Every recipient in this domain is refused, so `provider_error` can be reached. */
export const SANDBOX_REJECT_DOMAIN = 'reject.sandbox.test';

/**
 * The default provider: accepts every message (except the reject domain) by
 * recording it in the outbox the operator lists. Like a real provider it
 * honours the idempotency key: a repeated key is recorded once and answers the
 * first message id. It has no webhooks; the operator email-send events route
 * stands in for them.
 */
export const sandboxEmailProvider: EmailProvider = {
  name: 'sandbox',
  async send({ db, workspaceId }, message, idempotencyKey) {
    if (message.to.toLowerCase().endsWith(`@${SANDBOX_REJECT_DOMAIN}`)) {
      throw new ProviderRejected(`The sandbox provider refuses recipients in ${SANDBOX_REJECT_DOMAIN}`);
    }
    const from = message.fromName ? `${message.fromName} <${message.from}>` : message.from;
    const [, rows] = await runBatch(db, [
      rawRun(
        db,
        sql`INSERT INTO sandbox_outbox (id, workspace_id, channel, idempotency_key, "to", "from", subject, html, text, headers, body, created_at)
          VALUES (${uuidv7()}, ${workspaceId}, 'email', ${idempotencyKey}, ${message.to}, ${from}, ${message.subject}, ${message.html}, ${message.text},
            ${JSON.stringify(message.headers)}, NULL, ${nowIso()})
          ON CONFLICT (workspace_id, channel, idempotency_key) DO NOTHING`,
      ),
      rawAll<{ id: string }>(db, sql`SELECT id FROM sandbox_outbox WHERE workspace_id = ${workspaceId} AND channel = 'email' AND idempotency_key = ${idempotencyKey}`),
    ]);
    return { messageId: (rows as { id: string }[])[0].id };
  },
  async parseWebhook() {
    return [];
  },
};
