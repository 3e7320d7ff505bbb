CREATE TABLE `payment_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`deal_id` text,
	`provider` text NOT NULL,
	`status` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`title` text,
	`vat_mode` text,
	`vat_rate` real,
	`test_mode` integer NOT NULL,
	`token` text NOT NULL,
	`pay_url` text NOT NULL,
	`contact_payment_id` text,
	`provider_session_id` text,
	`provider_payment_ref` text,
	`document` text,
	`expires_at` text NOT NULL,
	`paid_at` text,
	`cancelled_at` text,
	`sweep_claim` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_requests_token` ON `payment_requests` (`token`);--> statement-breakpoint
CREATE INDEX `payment_requests_workspace_created` ON `payment_requests` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `payment_requests_workspace_contact` ON `payment_requests` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `payment_requests_due` ON `payment_requests` (`status`,`expires_at`);