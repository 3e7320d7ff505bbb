CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`url` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_status` integer,
	`last_error` text,
	`next_attempt_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_endpoint` ON `webhook_deliveries` (`event_id`,`endpoint_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_workspace_created` ON `webhook_deliveries` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_state` ON `webhook_deliveries` (`endpoint_id`,`state`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`slot` integer NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`secret` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_endpoints_workspace_slot` ON `webhook_endpoints` (`workspace_id`,`slot`);