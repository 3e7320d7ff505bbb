CREATE TABLE `moves` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`from_shard` text NOT NULL,
	`to_shard` text NOT NULL,
	`status` text NOT NULL,
	`phase` text NOT NULL,
	`cursor_table` text,
	`cursor_rowid` integer DEFAULT 0 NOT NULL,
	`copied_rows` integer DEFAULT 0 NOT NULL,
	`rounds` integer DEFAULT 0 NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`lease_until` text,
	`clear_after` text,
	`started_at` text NOT NULL,
	`finished_at` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `moves_one_running` ON `moves` (`workspace_id`) WHERE phase <> 'finished';--> statement-breakpoint
CREATE INDEX `moves_workspace_started` ON `moves` (`workspace_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `moves_unfinished` ON `moves` (`phase`,`updated_at`);