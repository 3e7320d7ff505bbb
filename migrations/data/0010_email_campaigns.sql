CREATE TABLE `email_campaign_recipients` (
	`campaign_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`status` text NOT NULL,
	`send_id` text,
	`unsubscribe_token` text NOT NULL,
	`unsubscribed_at` text,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`campaign_id`, `contact_id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_campaign_recipients_token` ON `email_campaign_recipients` (`unsubscribe_token`);--> statement-breakpoint
CREATE INDEX `email_campaign_recipients_open` ON `email_campaign_recipients` (`campaign_id`,`status`) WHERE status IN ('queued', 'sending');--> statement-breakpoint
CREATE INDEX `email_campaign_recipients_workspace_contact` ON `email_campaign_recipients` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `email_campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`subject` text,
	`preheader` text,
	`sender_profile_id` text,
	`audience_id` text,
	`audience_filters` text,
	`external_reference` text,
	`status` text NOT NULL,
	`scheduled_at` text,
	`sent_at` text,
	`cancelled_at` text,
	`design_json` text,
	`compiled_html` text,
	`compiled_styles` text,
	`plain_text` text,
	`targeted` integer DEFAULT 0 NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`delivered` integer DEFAULT 0 NOT NULL,
	`opened` integer DEFAULT 0 NOT NULL,
	`clicked` integer DEFAULT 0 NOT NULL,
	`bounced` integer DEFAULT 0 NOT NULL,
	`complained` integer DEFAULT 0 NOT NULL,
	`unsubscribed` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`targeting_done_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_campaigns_workspace_reference` ON `email_campaigns` (`workspace_id`,`external_reference`);--> statement-breakpoint
CREATE INDEX `email_campaigns_workspace_created` ON `email_campaigns` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `email_campaigns_due` ON `email_campaigns` (`status`,`scheduled_at`);