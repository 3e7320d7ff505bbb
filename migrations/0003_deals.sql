CREATE TABLE `deal_stage_history` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`deal_id` text NOT NULL,
	`from_pipeline_id` text,
	`from_stage_id` text,
	`to_pipeline_id` text NOT NULL,
	`to_stage_id` text NOT NULL,
	`changed_by` text,
	`source` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `deal_stage_history_deal` ON `deal_stage_history` (`workspace_id`,`deal_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `deals` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`pipeline_id` text NOT NULL,
	`stage_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`product_id` text,
	`owner_user_id` text,
	`title` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`lost_reason` text,
	`expected_close_at` text,
	`closed_at` text,
	`stage_entered_at` text NOT NULL,
	`position` integer NOT NULL,
	`note` text,
	`external_reference` text,
	`source` text NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deals_workspace_external_reference` ON `deals` (`workspace_id`,`external_reference`);--> statement-breakpoint
CREATE INDEX `deals_workspace_stage_position` ON `deals` (`workspace_id`,`stage_id`,`position`);--> statement-breakpoint
CREATE INDEX `deals_workspace_created` ON `deals` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `deals_workspace_contact` ON `deals` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`sku` text,
	`external_id` text,
	`description` text,
	`price_cents` integer,
	`vat_mode` text,
	`vat_rate` real,
	`is_active` integer DEFAULT true NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_workspace_sku` ON `products` (`workspace_id`,`sku`);--> statement-breakpoint
CREATE UNIQUE INDEX `products_workspace_external_id` ON `products` (`workspace_id`,`external_id`);--> statement-breakpoint
CREATE INDEX `products_workspace_created` ON `products` (`workspace_id`,`created_at`);