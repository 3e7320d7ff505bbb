-- Webhook deliveries get a hold (who attempts or re-sent a delivery, and until when) and an index of
-- the deliveries still to make by when they are due, which the outbox sweep walks to re-drive the
-- ones whose queue message was lost. (drizzle-kit writes an index on an expression with broken
-- quoting; the statement below is the snapshot's index, written by hand.)
ALTER TABLE `webhook_deliveries` ADD `held_until` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `held_by` text;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (coalesce("next_attempt_at", "updated_at")) WHERE state IN ('pending', 'retrying');
