CREATE TABLE `newsletter_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`newsletter_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`issue_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`status` text NOT NULL,
	`send_id` text,
	`reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `newsletter_deliveries_once` ON `newsletter_deliveries` (`subscription_id`,`issue_id`);--> statement-breakpoint
CREATE INDEX `newsletter_deliveries_issue` ON `newsletter_deliveries` (`workspace_id`,`issue_id`);--> statement-breakpoint
CREATE TABLE `newsletter_issues` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`newsletter_id` text NOT NULL,
	`issue_number` integer,
	`subject` text,
	`preheader` text,
	`status` text NOT NULL,
	`design_json` text,
	`compiled_html` text,
	`compiled_styles` text,
	`plain_text` text,
	`scheduled_at` text,
	`published_at` text,
	`include_in_archive` integer DEFAULT true NOT NULL,
	`external_reference` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `newsletter_issues_number` ON `newsletter_issues` (`newsletter_id`,`issue_number`);--> statement-breakpoint
CREATE UNIQUE INDEX `newsletter_issues_workspace_reference` ON `newsletter_issues` (`workspace_id`,`external_reference`);--> statement-breakpoint
CREATE INDEX `newsletter_issues_newsletter_created` ON `newsletter_issues` (`workspace_id`,`newsletter_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `newsletter_issues_due` ON `newsletter_issues` (`status`,`scheduled_at`);--> statement-breakpoint
CREATE TABLE `newsletter_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`newsletter_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`status` text NOT NULL,
	`cursor` integer NOT NULL,
	`next_catchup_at` text,
	`unsubscribe_token` text NOT NULL,
	`source` text NOT NULL,
	`subscribed_at` text NOT NULL,
	`unsubscribed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `newsletter_subscriptions_contact` ON `newsletter_subscriptions` (`newsletter_id`,`contact_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `newsletter_subscriptions_token` ON `newsletter_subscriptions` (`unsubscribe_token`);--> statement-breakpoint
CREATE INDEX `newsletter_subscriptions_active` ON `newsletter_subscriptions` (`status`,`newsletter_id`) WHERE status = 'active';--> statement-breakpoint
CREATE INDEX `newsletter_subscriptions_workspace_contact` ON `newsletter_subscriptions` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `newsletters` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'active' NOT NULL,
	`sender_profile_id` text,
	`start_policy` text DEFAULT 'next_issue' NOT NULL,
	`start_issue_number` integer DEFAULT 1 NOT NULL,
	`first_send_mode` text DEFAULT 'immediate' NOT NULL,
	`remember_window_days` integer DEFAULT 30 NOT NULL,
	`catchup_interval_days` integer DEFAULT 1 NOT NULL,
	`catchup_send_time` text DEFAULT '09:00' NOT NULL,
	`auto_subscribe_tag_id` text,
	`header_snippet_id` text,
	`footer_snippet_id` text,
	`archive_enabled` integer DEFAULT true NOT NULL,
	`slug` text NOT NULL,
	`archive_mode` text DEFAULT 'full' NOT NULL,
	`next_issue_number` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `newsletters_workspace_name` ON `newsletters` (`workspace_id`,`name_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `newsletters_workspace_slug` ON `newsletters` (`workspace_id`,`slug`);--> statement-breakpoint
CREATE INDEX `newsletters_workspace_created` ON `newsletters` (`workspace_id`,`created_at`);