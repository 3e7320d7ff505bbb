CREATE TABLE `payment_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`payment_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`sequence` integer NOT NULL,
	`cycle` integer,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`due_date` text,
	`paid_at` text,
	`recognized_cents` integer,
	`recognized_at` text,
	`refunded_cents` integer DEFAULT 0 NOT NULL,
	`kind` text NOT NULL,
	`refunds_entry_id` text,
	`note` text,
	`provider_refund_ref` text,
	`refund_idempotency_key` text,
	`credit_document` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_entries_payment_sequence` ON `payment_entries` (`payment_id`,`sequence`);--> statement-breakpoint
CREATE UNIQUE INDEX `payment_entries_payment_cycle` ON `payment_entries` (`payment_id`,`cycle`);--> statement-breakpoint
CREATE INDEX `payment_entries_workspace_contact` ON `payment_entries` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`product_id` text,
	`type` text NOT NULL,
	`title` text,
	`note` text,
	`currency` text NOT NULL,
	`total_cents` integer NOT NULL,
	`arrangement_status` text NOT NULL,
	`method` text,
	`purchase_date` text NOT NULL,
	`recurring_interval` text,
	`recurring_next_due_at` text,
	`recurring_auto_generate` integer,
	`recurring_cancelled_at` text,
	`recurring_end_at` text,
	`recurring_max_occurrences` integer,
	`recurring_cycles` integer DEFAULT 0 NOT NULL,
	`recurring_payment_method_id` text,
	`recurring_last_attempt_at` text,
	`recurring_failure_count` integer DEFAULT 0 NOT NULL,
	`recurring_paused_at` text,
	`recurring_next_retry_at` text,
	`recurring_dunning_started_at` text,
	`vat_mode` text,
	`vat_rate` real,
	`installment_count` integer,
	`external_reference` text,
	`source` text NOT NULL,
	`metadata` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_workspace_external_reference` ON `payments` (`workspace_id`,`external_reference`);--> statement-breakpoint
CREATE INDEX `payments_workspace_purchase_date` ON `payments` (`workspace_id`,`purchase_date`);--> statement-breakpoint
CREATE INDEX `payments_workspace_contact` ON `payments` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `payments_recurring_due` ON `payments` (`recurring_auto_generate`,`arrangement_status`,`recurring_next_due_at`);