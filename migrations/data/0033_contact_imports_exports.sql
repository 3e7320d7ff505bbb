CREATE TABLE `contact_exports` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`status` text NOT NULL,
	`filter` text,
	`columns` text,
	`cursor` text,
	`parts` integer NOT NULL,
	`row_count` integer NOT NULL,
	`failure` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text,
	`expires_at` text
);
--> statement-breakpoint
CREATE INDEX `contact_exports_workspace_created` ON `contact_exports` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contact_exports_expiry` ON `contact_exports` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `contact_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`status` text NOT NULL,
	`file_key` text,
	`delimiter` text NOT NULL,
	`columns` text NOT NULL,
	`chunk_offsets` text NOT NULL,
	`total_rows` integer NOT NULL,
	`processed_rows` integer NOT NULL,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	`failed` integer NOT NULL,
	`errors` text NOT NULL,
	`failure` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text
);
--> statement-breakpoint
CREATE INDEX `contact_imports_workspace_created` ON `contact_imports` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contact_imports_status` ON `contact_imports` (`status`,`updated_at`);