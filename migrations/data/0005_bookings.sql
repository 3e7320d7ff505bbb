CREATE TABLE `booking_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`booking_id` text NOT NULL,
	`from_user_id` text,
	`to_user_id` text NOT NULL,
	`reason` text,
	`kind` text NOT NULL,
	`forced` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `booking_assignments_booking` ON `booking_assignments` (`workspace_id`,`booking_id`);--> statement-breakpoint
CREATE TABLE `booking_settings` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`embed_key` text NOT NULL,
	`link_secret` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `bookings` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`meeting_type_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`host_user_id` text NOT NULL,
	`host_user_ids` text NOT NULL,
	`status` text NOT NULL,
	`start_at` text NOT NULL,
	`end_at` text NOT NULL,
	`host_timezone` text NOT NULL,
	`invitee_timezone` text NOT NULL,
	`invitee_name` text NOT NULL,
	`invitee_email` text NOT NULL,
	`invitee_phone` text,
	`join_url` text,
	`notes` text,
	`source` text NOT NULL,
	`pinned_host_user_id` text,
	`dedupe_key` text NOT NULL,
	`cancelled_at` text,
	`cancelled_by` text,
	`cancellation_reason` text,
	`rescheduled_at` text,
	`previous_start_at` text,
	`reschedule_count` integer DEFAULT 0 NOT NULL,
	`no_show_marked_at` text,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_confirmed_dedupe` ON `bookings` (`workspace_id`,`dedupe_key`) WHERE status = 'confirmed';--> statement-breakpoint
CREATE INDEX `bookings_workspace_start` ON `bookings` (`workspace_id`,`start_at`);--> statement-breakpoint
CREATE INDEX `bookings_workspace_status_start` ON `bookings` (`workspace_id`,`status`,`start_at`);--> statement-breakpoint
CREATE INDEX `bookings_workspace_contact` ON `bookings` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `bookings_status_end` ON `bookings` (`status`,`end_at`);--> statement-breakpoint
CREATE TABLE `busy_blocks` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`start_at` text NOT NULL,
	`end_at` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `busy_blocks_workspace_start` ON `busy_blocks` (`workspace_id`,`start_at`);--> statement-breakpoint
CREATE TABLE `meeting_types` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`description` text,
	`duration_minutes` integer NOT NULL,
	`location_type` text NOT NULL,
	`is_active` integer NOT NULL,
	`scheduling_kind` text NOT NULL,
	`host_user_ids` text NOT NULL,
	`timezone` text NOT NULL,
	`weekly_hours` text,
	`min_notice_minutes` integer NOT NULL,
	`buffer_before_minutes` integer NOT NULL,
	`buffer_after_minutes` integer NOT NULL,
	`daily_cap` integer,
	`slot_interval_minutes` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `meeting_types_workspace_slug` ON `meeting_types` (`workspace_id`,`slug`);--> statement-breakpoint
CREATE INDEX `meeting_types_workspace_created` ON `meeting_types` (`workspace_id`,`created_at`);