CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_workspace` ON `api_keys` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`timezone` text DEFAULT 'UTC' NOT NULL,
	`default_country` text DEFAULT 'US' NOT NULL,
	`currency` text DEFAULT 'USD' NOT NULL,
	`api_access` integer DEFAULT true NOT NULL,
	`features` text NOT NULL,
	`caps` text NOT NULL,
	`lead_scoring` integer DEFAULT false NOT NULL,
	`email` text NOT NULL,
	`rate_limits` text NOT NULL,
	`whatsapp_phone_number_id` text NOT NULL,
	`vat_mode` text DEFAULT 'exclusive' NOT NULL,
	`vat_rate` real DEFAULT 0 NOT NULL,
	`shard` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `workspaces_shard` ON `workspaces` (`shard`);--> statement-breakpoint
CREATE UNIQUE INDEX `workspaces_whatsapp_phone_number_id` ON `workspaces` (`whatsapp_phone_number_id`);