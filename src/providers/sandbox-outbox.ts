import type { SQL } from 'drizzle-orm';
import type { Db, Statement } from '../platform/d1/db';
import type { Read } from '../platform/d1/typed-read';

/** A send recorded without an idempotency key of its own (WhatsApp has none). */
export type OutboxEntry = {
  workspaceId: string;
  channel: 'whatsapp';
  to: string;
  from?: string | null;
  text?: string | null;
  body?: Record<string, unknown> | null;
};

/**
 * Where the sandbox providers record what they accept: the sandbox-outbox module's table. A provider imports no
 * module, so the composition root (src/wiring.ts) hands this in and the provider factories pass it to the sandboxes.
 */
export type SandboxOutbox = {
  /**
   * Writes keyed email messages (`rows`: a JSON array of `{id, k, to, from, subject, html, text, headers, attachments}`,
   * the last two JSON texts); a key the outbox already holds keeps its first message.
   */
  keyedEmailsInsert(db: Db, workspaceId: string, rows: string): Statement;
  /** For the caller's batch: the message ids (`{id, idempotency_key}` rows) held for these email keys. */
  keyedEmailIds(db: Db, workspaceId: string, keys: string[]): Read<{ id: string; idempotency_key: string }[]>;
  /** SQL: the message id of an email key, for a statement after the message's in the same batch. */
  keyedEmailId(workspaceId: string, key: string): SQL<string>;
  outboxEntry(db: Db, entry: OutboxEntry): Statement;
  recordOutboxEntries(db: Db, entries: OutboxEntry[]): Promise<void>;
};

let wired: SandboxOutbox | null = null;

/** Called by the composition root only. */
export function wireSandboxOutbox(outbox: SandboxOutbox): void {
  wired = outbox;
}

export function sandboxOutbox(): SandboxOutbox {
  if (!wired) throw new Error('The sandbox outbox is not wired: src/wiring.ts hands it in when it loads');
  return wired;
}
