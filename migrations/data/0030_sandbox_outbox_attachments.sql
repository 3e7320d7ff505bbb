ALTER TABLE `bookings` ADD `invite_sequence` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sandbox_outbox` ADD `attachments` text;