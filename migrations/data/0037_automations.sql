CREATE TABLE `automation_enrollments` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`automation_id` text NOT NULL,
	`automation_version` integer NOT NULL,
	`contact_id` text,
	`status` text NOT NULL,
	`trigger_event_id` text,
	`trigger_event_type` text,
	`trigger_data` text,
	`trigger_objects` text NOT NULL,
	`once_key` text,
	`active_key` text,
	`current_step_id` text,
	`waiting_step_id` text,
	`waiting_event_type` text,
	`enrolled_at` text NOT NULL,
	`started_at` text,
	`ended_at` text,
	`exit_reason` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automation_enrollments_trigger_event` ON `automation_enrollments` (`automation_id`,`trigger_event_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `automation_enrollments_once` ON `automation_enrollments` (`automation_id`,`once_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `automation_enrollments_active` ON `automation_enrollments` (`automation_id`,`active_key`);--> statement-breakpoint
CREATE INDEX `automation_enrollments_automation` ON `automation_enrollments` (`workspace_id`,`automation_id`,`enrolled_at`);--> statement-breakpoint
CREATE INDEX `automation_enrollments_contact` ON `automation_enrollments` (`workspace_id`,`contact_id`,`status`);--> statement-breakpoint
CREATE INDEX `automation_enrollments_unstarted` ON `automation_enrollments` (`started_at`,`enrolled_at`) WHERE started_at IS NULL AND status = 'active';--> statement-breakpoint
CREATE TABLE `automation_event_types` (
	`workspace_id` text NOT NULL,
	`event_type` text NOT NULL,
	`automation_id` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `event_type`, `automation_id`)
);
--> statement-breakpoint
CREATE TABLE `automation_step_runs` (
	`enrollment_id` text NOT NULL,
	`step_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`seq` integer NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`reason` text,
	`result` text,
	`unsubscribe_token` text,
	PRIMARY KEY(`enrollment_id`, `step_id`)
);
--> statement-breakpoint
CREATE INDEX `automation_step_runs_workspace` ON `automation_step_runs` (`workspace_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `automation_step_runs_unsubscribe_token` ON `automation_step_runs` (`unsubscribe_token`);--> statement-breakpoint
CREATE TABLE `automation_versions` (
	`automation_id` text NOT NULL,
	`version` integer NOT NULL,
	`workspace_id` text NOT NULL,
	`definition` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`automation_id`, `version`)
);
--> statement-breakpoint
CREATE INDEX `automation_versions_workspace` ON `automation_versions` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `automations` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`definition` text NOT NULL,
	`trigger_event` text NOT NULL,
	`link_origin` text,
	`activated_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `automations_workspace_created` ON `automations` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `automations_workspace_trigger` ON `automations` (`workspace_id`,`trigger_event`,`status`);