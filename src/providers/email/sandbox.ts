import { sql } from 'drizzle-orm';
import { nowIso, runBatch, type Statement } from '../../platform/db';
import { uuidv7 } from '../../platform/ids';
import { rawAll, rawRun } from '../../platform/raw-query';
import { type BatchOutcome, type EmailProvider, type KeyedEmail, type ProviderContext, ProviderRejected } from './types';

/** Every recipient in this domain is refused, so `provider_error` can be reached. */
export const SANDBOX_REJECT_DOMAIN = 'reject.sandbox.test';

/** Messages are written in groups whose JSON stays well under a D1 value's 2 MB. */
const GROUP_BYTES = 1_000_000;

type OutboxRow = { id: string; k: string; to: string; from: string; subject: string; html: string; text: string; headers: string };

function groups(rows: OutboxRow[]): OutboxRow[][] {
  const out: OutboxRow[][] = [];
  let size = GROUP_BYTES;
  for (const row of rows) {
    const bytes = row.html.length + row.text.length + row.subject.length + 500;
    if (size + bytes > GROUP_BYTES) out.push([]), (size = 0);
    out[out.length - 1].push(row);
    size += bytes;
  }
  return out;
}

/**
 * Records the accepted messages in the outbox in one batch: a repeated key is
 * recorded once and answers its first message id, as a provider honouring
 * idempotency keys does.
 */
async function record({ db, workspaceId }: ProviderContext, messages: KeyedEmail[]): Promise<BatchOutcome[]> {
  const outcomes: (BatchOutcome | null)[] = messages.map(({ message }) =>
    message.to.toLowerCase().endsWith(`@${SANDBOX_REJECT_DOMAIN}`) ? { rejected: `The sandbox provider refuses recipients in ${SANDBOX_REJECT_DOMAIN}` } : null,
  );
  const rows: OutboxRow[] = [];
  messages.forEach(({ message: m, idempotencyKey }, i) => {
    if (outcomes[i]) return;
    rows.push({ id: uuidv7(), k: idempotencyKey, to: m.to, from: m.from, subject: m.subject, html: m.html, text: m.text, headers: JSON.stringify(m.headers) });
  });
  if (rows.length === 0) return outcomes as BatchOutcome[];
  const now = nowIso();
  const statements: Statement[] = groups(rows).map((group) =>
    rawRun(
      db,
      sql`INSERT INTO sandbox_outbox (id, workspace_id, channel, idempotency_key, "to", "from", subject, html, text, headers, body, created_at)
        SELECT value ->> 'id', ${workspaceId}, 'email', value ->> 'k', value ->> 'to', value ->> 'from', value ->> 'subject', value ->> 'html', value ->> 'text',
          value ->> 'headers', NULL, ${now}
        FROM json_each(${JSON.stringify(group)}) WHERE 1
        ON CONFLICT (workspace_id, channel, idempotency_key) DO NOTHING`,
    ),
  );
  statements.push(
    rawAll<{ id: string; idempotency_key: string }>(
      db,
      sql`SELECT id, idempotency_key FROM sandbox_outbox WHERE workspace_id = ${workspaceId} AND channel = 'email'
        AND idempotency_key IN (SELECT value FROM json_each(${JSON.stringify(rows.map((r) => r.k))}))`,
    ),
  );
  const results = await runBatch(db, statements);
  const ids = new Map((results[results.length - 1] as { id: string; idempotency_key: string }[]).map((r) => [r.idempotency_key, r.id]));
  return messages.map(({ idempotencyKey }, i) => outcomes[i] ?? { messageId: ids.get(idempotencyKey)! });
}

/**
 * The default provider: accepts every message (except the reject domain) by
 * recording it in the outbox the operator lists. It has no webhooks; the
 * operator email-send events route stands in for them.
 */
export const sandboxEmailProvider: EmailProvider = {
  name: 'sandbox',
  async send(ctx, message, idempotencyKey) {
    const [outcome] = await record(ctx, [{ message, idempotencyKey }]);
    if ('rejected' in outcome) throw new ProviderRejected(outcome.rejected);
    return outcome;
  },
  sendBatch: record,
  async parseWebhook() {
    return [];
  },
};
