CREATE TABLE `sandbox_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`channel` text NOT NULL,
	`to` text NOT NULL,
	`from` text,
	`subject` text,
	`html` text,
	`text` text,
	`headers` text,
	`body` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_outbox_workspace_channel` ON `sandbox_outbox` (`workspace_id`,`channel`,`created_at`);--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`channel` text NOT NULL,
	`last_message_at` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_workspace_contact_channel` ON `conversations` (`workspace_id`,`contact_id`,`channel`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`conversation_id` text,
	`contact_id` text,
	`channel` text NOT NULL,
	`direction` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`wamid` text,
	`template_id` text,
	`campaign_id` text,
	`text` text,
	`media` text,
	`error` text,
	`provider_timestamp` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_workspace_wamid` ON `messages` (`workspace_id`,`wamid`);--> statement-breakpoint
CREATE INDEX `messages_conversation_created` ON `messages` (`conversation_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_workspace_contact` ON `messages` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `whatsapp_campaign_recipients` (
	`campaign_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`status` text NOT NULL,
	`message_id` text,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `whatsapp_campaign_recipients_pk` ON `whatsapp_campaign_recipients` (`campaign_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `whatsapp_campaign_recipients_status` ON `whatsapp_campaign_recipients` (`campaign_id`,`status`);--> statement-breakpoint
CREATE INDEX `whatsapp_campaign_recipients_contact` ON `whatsapp_campaign_recipients` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `whatsapp_campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`template_id` text NOT NULL,
	`audience_id` text,
	`audience_filters` text,
	`variables` text NOT NULL,
	`status` text NOT NULL,
	`scheduled_at` text,
	`started_at` text,
	`completed_at` text,
	`targeted` integer DEFAULT 0 NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`targeting_done_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `whatsapp_campaigns_workspace_created` ON `whatsapp_campaigns` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `whatsapp_campaigns_due` ON `whatsapp_campaigns` (`status`,`scheduled_at`);--> statement-breakpoint
CREATE TABLE `whatsapp_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`language` text NOT NULL,
	`category` text NOT NULL,
	`status` text NOT NULL,
	`body` text NOT NULL,
	`header` text,
	`buttons` text NOT NULL,
	`placeholders` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `whatsapp_templates_workspace_name_language` ON `whatsapp_templates` (`workspace_id`,`name`,`language`);--> statement-breakpoint
CREATE INDEX `whatsapp_templates_workspace_created` ON `whatsapp_templates` (`workspace_id`,`created_at`);