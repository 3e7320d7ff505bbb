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