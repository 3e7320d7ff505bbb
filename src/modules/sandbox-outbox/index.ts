export { OUTBOX_CHANNELS, type OutboxAttachment, type OutboxChannel } from './schema';
export { keyedEmailId, keyedEmailIds, keyedEmailsInsert, listOutbox, outboxEntry, recordOutboxEntries } from './service';
