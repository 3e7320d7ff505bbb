import type { Db, Statement } from '../../platform/d1/db';
import { writeThenRead } from '../../platform/d1/write-then-read';
import { uuidv7 } from '../../platform/ids';
import type { SandboxOutbox } from '../sandbox-outbox';
import { type BatchOutcome, type EmailProvider, type KeyedEmail, type OutgoingEmail, type ProviderContext, ProviderRejected } from './types';

/** Every recipient in this domain is refused, so `provider_error` can be reached. */
export const SANDBOX_REJECT_DOMAIN = 'reject.sandbox.test';

/** Messages are written in groups whose JSON stays well under a D1 value's 2 MB. */
const GROUP_BYTES = 1_000_000;

type OutboxRow = {
  id: string;
  k: string;
  to: string;
  from: string;
  subject: string;
  html: string;
  text: string;
  headers: string;
  /** JSON of the message's attachments, or null when it has none. */
  attachments: string | null;
};

function groups(rows: OutboxRow[]): OutboxRow[][] {
  const out: OutboxRow[][] = [];
  let size = GROUP_BYTES;
  for (const row of rows) {
    const bytes = row.html.length + row.text.length + row.subject.length + (row.attachments?.length ?? 0) + 500;
    if (size + bytes > GROUP_BYTES) {
      out.push([]);
      size = 0;
    }
    out[out.length - 1].push(row);
    size += bytes;
  }
  return out;
}

const refusal = (message: OutgoingEmail) =>
  message.to.toLowerCase().endsWith(`@${SANDBOX_REJECT_DOMAIN}`) ? `The sandbox provider refuses recipients in ${SANDBOX_REJECT_DOMAIN}` : null;

const outboxRow = (message: OutgoingEmail, idempotencyKey: string): OutboxRow => ({
  id: uuidv7(),
  k: idempotencyKey,
  to: message.to,
  from: message.from,
  subject: message.subject,
  html: message.html,
  text: message.text,
  headers: JSON.stringify(message.headers),
  attachments: message.attachments?.length ? JSON.stringify(message.attachments) : null,
});

const insertRows = (outbox: SandboxOutbox, db: Db, workspaceId: string, rows: OutboxRow[]): Statement =>
  outbox.keyedEmailsInsert(db, workspaceId, JSON.stringify(rows));

/**
 * Records the accepted messages in the outbox in one batch: a repeated key is
 * recorded once and answers its first message id, as a provider honouring
 * idempotency keys does.
 */
async function record(outbox: SandboxOutbox, { db, workspaceId }: ProviderContext, messages: KeyedEmail[]): Promise<BatchOutcome[]> {
  const outcomes: (BatchOutcome | null)[] = messages.map(({ message }) => {
    const refused = refusal(message);
    return refused ? { rejected: refused } : null;
  });
  const rows: OutboxRow[] = [];
  messages.forEach(({ message, idempotencyKey }, i) => {
    if (!outcomes[i]) rows.push(outboxRow(message, idempotencyKey));
  });
  if (rows.length === 0) return outcomes as BatchOutcome[];
  const inserts = groups(rows).map((group) => insertRows(outbox, db, workspaceId, group));
  const { held } = await writeThenRead(db, inserts, {
    held: outbox.keyedEmailIds(
      db,
      workspaceId,
      rows.map((r) => r.k),
    ),
  });
  const ids = new Map(held.map((r) => [r.idempotency_key, r.id]));
  return messages.map(({ idempotencyKey }, i) => outcomes[i] ?? { messageId: ids.get(idempotencyKey)! });
}

/**
 * The default provider: accepts every message (except the reject domain) by
 * recording it in the outbox the operator lists. It has no webhooks; the
 * operator email-send events route stands in for them.
 */
export const sandboxEmailProvider = (outbox: SandboxOutbox): EmailProvider => ({
  name: 'sandbox',
  async send(ctx, message, idempotencyKey) {
    const [outcome] = await record(outbox, ctx, [{ message, idempotencyKey }]);
    if ('rejected' in outcome) throw new ProviderRejected(outcome.rejected);
    return outcome;
  },
  sendBatch: (ctx, messages) => record(outbox, ctx, messages),
  // The outbox row is written in the caller's batch; the message id is that key's row, the first one written for it.
  handOffInBatch({ db, workspaceId }, message, idempotencyKey) {
    if (refusal(message)) return null;
    return {
      statements: [insertRows(outbox, db, workspaceId, [outboxRow(message, idempotencyKey)])],
      messageId: outbox.keyedEmailId(workspaceId, idempotencyKey),
    };
  },
  async parseWebhook() {
    return [];
  },
});
