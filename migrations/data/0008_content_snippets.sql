CREATE TABLE `snippets` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`markdown` text,
	`html` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `snippets_workspace_name` ON `snippets` (`workspace_id`,`name_key`);--> statement-breakpoint
CREATE INDEX `snippets_workspace_created` ON `snippets` (`workspace_id`,`created_at`);