export { OUTBOX_CHANNELS, type OutboxChannel } from './schema';
export { keyedEmailId, keyedEmailIds, keyedEmailsInsert, listOutbox, outboxEntry, recordOutboxEntries } from './service';
