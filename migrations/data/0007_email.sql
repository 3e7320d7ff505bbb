CREATE TABLE `audiences` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`definition` text NOT NULL,
	`last_count` integer,
	`last_counted_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audiences_workspace_created` ON `audiences` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `email_quota_usage` (
	`workspace_id` text NOT NULL,
	`month` text NOT NULL,
	`sends` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `month`)
);
--> statement-breakpoint
CREATE TABLE `email_sends` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`idempotency_key` text,
	`source` text NOT NULL,
	`status` text NOT NULL,
	`to` text NOT NULL,
	`from` text,
	`sender_profile_id` text,
	`subject` text NOT NULL,
	`provider` text,
	`provider_message_id` text,
	`track_opens` integer NOT NULL,
	`track_clicks` integer NOT NULL,
	`metadata` text,
	`counted_month` text,
	`counted_day` text,
	`delivered_at` text,
	`bounced_at` text,
	`bounce_type` text,
	`complained_at` text,
	`opened_at` text,
	`machine_open` integer,
	`clicked_at` text,
	`clicked_url` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_sends_workspace_key` ON `email_sends` (`workspace_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `email_sends_provider_message` ON `email_sends` (`provider_message_id`);--> statement-breakpoint
CREATE TABLE `email_warming_usage` (
	`workspace_id` text NOT NULL,
	`day` text NOT NULL,
	`sends` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `day`)
);
--> statement-breakpoint
CREATE TABLE `sender_profiles` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`from_name` text NOT NULL,
	`local_part` text NOT NULL,
	`domain` text NOT NULL,
	`reply_to` text,
	`provider` text NOT NULL,
	`is_default` integer NOT NULL,
	`domain_verified` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sender_profiles_workspace_created` ON `sender_profiles` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `sender_profiles_one_default` ON `sender_profiles` (`workspace_id`) WHERE is_default = 1;--> statement-breakpoint
CREATE TABLE `global_email_suppressions` (
	`email` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
DROP INDEX `sandbox_outbox_workspace_channel`;--> statement-breakpoint
ALTER TABLE `sandbox_outbox` ADD `idempotency_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `sandbox_outbox_key` ON `sandbox_outbox` (`workspace_id`,`channel`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `sandbox_outbox_workspace_created` ON `sandbox_outbox` (`workspace_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `email_suppressions` ADD `source` text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE `email_suppressions` ADD `note` text;--> statement-breakpoint
CREATE INDEX `email_suppressions_workspace_created` ON `email_suppressions` (`workspace_id`,`created_at`);