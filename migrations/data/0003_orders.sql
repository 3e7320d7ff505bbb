CREATE TABLE `order_counters` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`last_number` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `order_items` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`order_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`position` integer NOT NULL,
	`product_id` text,
	`external_product_id` text,
	`title` text NOT NULL,
	`sku` text,
	`quantity` real NOT NULL,
	`unit_price_cents` integer NOT NULL,
	`discount_percent` real,
	`line_total_cents` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `order_items_order_position` ON `order_items` (`order_id`,`position`);--> statement-breakpoint
CREATE INDEX `order_items_workspace_contact` ON `order_items` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `order_refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`order_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`external_refund_id` text,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`reason` text,
	`refunded_at` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `order_refunds_order_external_refund_id` ON `order_refunds` (`order_id`,`external_refund_id`);--> statement-breakpoint
CREATE INDEX `order_refunds_order_refunded_at` ON `order_refunds` (`order_id`,`refunded_at`);--> statement-breakpoint
CREATE INDEX `order_refunds_workspace_contact` ON `order_refunds` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `orders` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`order_number` integer NOT NULL,
	`number` text,
	`platform` text NOT NULL,
	`source` text NOT NULL,
	`store_connection_id` text,
	`store_domain` text,
	`external_order_id` text,
	`external_updated_at` text,
	`external_reference` text,
	`deal_id` text,
	`financial_status` text NOT NULL,
	`fulfillment_status` text NOT NULL,
	`currency` text NOT NULL,
	`total_cents` integer NOT NULL,
	`subtotal_cents` integer NOT NULL,
	`discount_total_cents` integer NOT NULL,
	`shipping_total_cents` integer NOT NULL,
	`tax_total_cents` integer NOT NULL,
	`refunded_total_cents` integer DEFAULT 0 NOT NULL,
	`item_count` integer NOT NULL,
	`first_item_name` text,
	`coupon_codes` text NOT NULL,
	`placed_at` text NOT NULL,
	`paid_at` text,
	`cancelled_at` text,
	`refunded_at` text,
	`payment_reference` text,
	`payment_synced_at` text,
	`note` text,
	`metadata` text,
	`created_by` text,
	`revision` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_workspace_order_number` ON `orders` (`workspace_id`,`order_number`);--> statement-breakpoint
CREATE UNIQUE INDEX `orders_workspace_external_reference` ON `orders` (`workspace_id`,`external_reference`);--> statement-breakpoint
CREATE UNIQUE INDEX `orders_workspace_payment_reference` ON `orders` (`workspace_id`,`payment_reference`);--> statement-breakpoint
CREATE INDEX `orders_workspace_placed_at` ON `orders` (`workspace_id`,`placed_at`);--> statement-breakpoint
CREATE INDEX `orders_workspace_contact` ON `orders` (`workspace_id`,`contact_id`);