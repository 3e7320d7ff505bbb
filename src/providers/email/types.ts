import type { SQL } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { Db, Statement } from '../../platform/d1/db';

/** A file carried by a message: its name, MIME type (parameters included, e.g. `text/calendar; method=REQUEST`) and bytes in base64. */
export type EmailAttachment = { filename: string; content_type: string; content_base64: string };

/** One rendered message, ready for a provider. */
export type OutgoingEmail = {
  /** The From header: one mailbox, `Name <address>` or `"Quoted, name" <address>` (never a second address, never a line break). */
  from: string;
  to: string;
  replyTo: string | null;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
  /** Files sent along (a booking's `invite.ics`); absent or empty for none. */
  attachments?: EmailAttachment[];
  /** Correlation the provider echoes in its webhooks (Resend `tags`). */
  workspaceId: string;
  sendId: string;
};

/** A message with its own idempotency key (the same for every attempt of its send). */
export type KeyedEmail = { message: OutgoingEmail; idempotencyKey: string };

export type BatchOutcome = { messageId: string } | { rejected: string };

/** The most messages one `sendBatch` call takes (Resend's batch limit). */
export const BATCH_MAX = 100;

/** Where a provider call runs: the workspace's data handle (the sandbox records there) and the bindings (secrets). */
export type ProviderContext = { env: Bindings; db: Db; workspaceId: string };

/**
 * A hand-off that is itself a D1 write (the sandbox's outbox), made inside the caller's write
 * batch: `statements` record the message, and `messageId` is SQL answering the provider's message
 * id when evaluated after them in that batch.
 */
export type BatchedHandOff = { statements: Statement[]; messageId: SQL };

/** The provider refused the message (or could not be reached): the send fails with 502 `provider_error`. */
export class ProviderRejected extends Error {}

/** The provider webhook failed its signature check: 401. */
export class InvalidProviderSignature extends Error {}

export type DeliveryType = 'delivered' | 'bounced' | 'complained' | 'opened' | 'clicked';
export type BounceType = 'hard' | 'soft' | 'block';

/** One delivery or engagement fact a provider reported about a message it accepted. */
export type ProviderReport = {
  providerMessageId: string;
  /** The workspace, when the provider echoes our correlation tags. */
  workspaceId?: string;
  type: DeliveryType;
  bounceType?: BounceType;
  reason?: string;
  url?: string;
  machine?: boolean;
};

export interface EmailProvider {
  readonly name: string;
  /**
   * Hands one message over. `idempotencyKey` is the same for every attempt of
   * one send (a crash-recovery retry included), so a provider that honours it
   * accepts the message once. Returns the provider's message id.
   */
  send(ctx: ProviderContext, message: OutgoingEmail, idempotencyKey: string): Promise<{ messageId: string }>;
  /**
   * The hand-off of one message as statements of the caller's own write batch, so the message is
   * recorded in the transaction that counts and writes its send (no separate provider call and no
   * separate mark as sent). Only a provider whose hand-off is a D1 write offers it; null for a
   * message it would refuse, which then takes `send` and its refusal.
   */
  handOffInBatch?(ctx: ProviderContext, message: OutgoingEmail, idempotencyKey: string): BatchedHandOff | null;
  /**
   * Hands up to `BATCH_MAX` messages over in one call (bulk sends). Answers one
   * outcome per message, in order: its message id, or why the provider refused
   * that one. A failure of the whole call throws `ProviderRejected`.
   */
  sendBatch(ctx: ProviderContext, messages: KeyedEmail[]): Promise<BatchOutcome[]>;
  /** Verifies and parses a webhook delivery (raw body as received); unknown notification types are skipped. */
  parseWebhook(env: Bindings, headers: Headers, rawBody: string): Promise<ProviderReport[]>;
}
