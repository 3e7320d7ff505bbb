CREATE TABLE `contact_scores` (
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`computed_at` text NOT NULL,
	`decay_due_at` text,
	PRIMARY KEY(`workspace_id`, `contact_id`)
);
--> statement-breakpoint
CREATE INDEX `contact_scores_decay_due` ON `contact_scores` (`decay_due_at`) WHERE decay_due_at IS NOT NULL;--> statement-breakpoint
CREATE TABLE `score_signals` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`signal` text NOT NULL,
	`occurred_at` text NOT NULL,
	`pending` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `score_signals_contact` ON `score_signals` (`workspace_id`,`contact_id`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `score_signals_pending` ON `score_signals` (`workspace_id`,`contact_id`) WHERE pending = 1;--> statement-breakpoint
CREATE TABLE `scoring_configs` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`enabled` integer NOT NULL,
	`rules` text NOT NULL,
	`half_life_days` integer,
	`rescore_generation` integer DEFAULT 0 NOT NULL,
	`rescore_after` text,
	`rescore_touched_at` text,
	`updated_at` text NOT NULL
);
