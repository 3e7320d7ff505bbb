CREATE TABLE `attendance_events` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`start_at` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `attendance_events_workspace` ON `attendance_events` (`workspace_id`,`start_at`);--> statement-breakpoint
CREATE TABLE `event_attendances` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`event_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`status` text NOT NULL,
	`registered_at` text NOT NULL,
	`attended_at` text,
	`unregistered_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `event_attendances_event_contact` ON `event_attendances` (`event_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `event_attendances_contact` ON `event_attendances` (`contact_id`,`event_id`);--> statement-breakpoint
CREATE TABLE `phone_blacklist` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`phone` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `phone_blacklist_workspace_phone` ON `phone_blacklist` (`workspace_id`,`phone`);--> statement-breakpoint
CREATE TABLE `consent_ledger` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`channel` text NOT NULL,
	`action` text NOT NULL,
	`state` text NOT NULL,
	`previous_state` text,
	`source` text NOT NULL,
	`basis` text,
	`evidence` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `consent_ledger_contact` ON `consent_ledger` (`workspace_id`,`contact_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `contact_activities` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`type` text NOT NULL,
	`source` text NOT NULL,
	`data` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `contact_activities_contact` ON `contact_activities` (`workspace_id`,`contact_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `contact_group_links` (
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`group_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`contact_id`, `group_id`)
);
--> statement-breakpoint
CREATE INDEX `contact_group_links_group` ON `contact_group_links` (`group_id`);--> statement-breakpoint
CREATE TABLE `contact_identifiers` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`assigned_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contact_identifiers_unique` ON `contact_identifiers` (`workspace_id`,`kind`,`value`,`contact_id`);--> statement-breakpoint
CREATE INDEX `contact_identifiers_lookup` ON `contact_identifiers` (`workspace_id`,`value`,`assigned_at`);--> statement-breakpoint
CREATE INDEX `contact_identifiers_contact` ON `contact_identifiers` (`contact_id`);--> statement-breakpoint
CREATE TABLE `contact_tag_links` (
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`tag_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`contact_id`, `tag_id`)
);
--> statement-breakpoint
CREATE INDEX `contact_tag_links_tag` ON `contact_tag_links` (`tag_id`);--> statement-breakpoint
CREATE TABLE `contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`phone` text,
	`email` text,
	`name` text,
	`first_name` text,
	`last_name` text,
	`avatar_url` text,
	`notes` text,
	`lifecycle_stage` text,
	`source` text,
	`block_state` text DEFAULT 'none' NOT NULL,
	`block_source` text,
	`company_name` text,
	`vat_number` text,
	`job_title` text,
	`industry` text,
	`company_website` text,
	`annual_revenue` real,
	`employee_count` integer,
	`currency_preference` text,
	`address_line1` text,
	`address_line2` text,
	`city` text,
	`state` text,
	`country` text,
	`postal_code` text,
	`gender` text,
	`date_of_birth` text,
	`language` text,
	`source_page_url` text,
	`source_page_title` text,
	`referrer` text,
	`user_agent` text,
	`affiliate` text,
	`utm_source` text,
	`utm_medium` text,
	`utm_campaign` text,
	`utm_term` text,
	`utm_content` text,
	`gclid` text,
	`fbclid` text,
	`lead_score` real,
	`linkedin_url` text,
	`facebook_url` text,
	`instagram_handle` text,
	`twitter_handle` text,
	`custom_fields` text DEFAULT '{}' NOT NULL,
	`whatsapp_consent_state` text,
	`whatsapp_consent_updated_at` text,
	`whatsapp_deliverability` text DEFAULT 'unknown' NOT NULL,
	`whatsapp_complained_at` text,
	`email_consent_state` text,
	`email_consent_updated_at` text,
	`email_deliverability` text DEFAULT 'unknown' NOT NULL,
	`email_complained_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_workspace_phone` ON `contacts` (`workspace_id`,`phone`);--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_workspace_email` ON `contacts` (`workspace_id`,`email`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_created` ON `contacts` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_updated` ON `contacts` (`workspace_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_name` ON `contacts` (`workspace_id`,`name`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_last_name` ON `contacts` (`workspace_id`,`last_name`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_company` ON `contacts` (`workspace_id`,`company_name`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_lifecycle` ON `contacts` (`workspace_id`,`lifecycle_stage`,`created_at`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_score` ON `contacts` (`workspace_id`,`lead_score`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_wa_consent` ON `contacts` (`workspace_id`,`whatsapp_consent_state`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_email_consent` ON `contacts` (`workspace_id`,`email_consent_state`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_search` ON `contacts` (`workspace_id`,`name`,`first_name`,`last_name`,`email`,`phone`,`company_name`);--> statement-breakpoint
CREATE TABLE `contact_merge_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`target_contact_id` text NOT NULL,
	`other_contact_id` text NOT NULL,
	`pair_key` text NOT NULL,
	`status` text NOT NULL,
	`origin` text NOT NULL,
	`identity` text NOT NULL,
	`parked_fields` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`resolved_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contact_merge_requests_open_pair` ON `contact_merge_requests` (`workspace_id`,`pair_key`) WHERE status = 'open';--> statement-breakpoint
CREATE TABLE `deal_stage_history` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`deal_id` text NOT NULL,
	`from_pipeline_id` text,
	`from_stage_id` text,
	`to_pipeline_id` text NOT NULL,
	`to_stage_id` text NOT NULL,
	`changed_by` text,
	`source` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `deal_stage_history_deal` ON `deal_stage_history` (`workspace_id`,`deal_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `deals` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`pipeline_id` text NOT NULL,
	`stage_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`product_id` text,
	`owner_user_id` text,
	`title` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`lost_reason` text,
	`expected_close_at` text,
	`closed_at` text,
	`stage_entered_at` text NOT NULL,
	`position` integer NOT NULL,
	`note` text,
	`external_reference` text,
	`source` text NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deals_workspace_external_reference` ON `deals` (`workspace_id`,`external_reference`);--> statement-breakpoint
CREATE INDEX `deals_workspace_stage_position` ON `deals` (`workspace_id`,`stage_id`,`position`);--> statement-breakpoint
CREATE INDEX `deals_workspace_created` ON `deals` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `deals_workspace_contact` ON `deals` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `event_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` text NOT NULL,
	`enqueued_at` text,
	`attempts` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `event_outbox_pending` ON `event_outbox` (`enqueued_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `form_submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`form_id` text NOT NULL,
	`form_name` text NOT NULL,
	`origin` text NOT NULL,
	`fields` text NOT NULL,
	`contact_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `form_submissions_form` ON `form_submissions` (`workspace_id`,`form_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `contact_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`author_user_id` text,
	`source` text NOT NULL,
	`body` text NOT NULL,
	`pinned_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `contact_notes_contact` ON `contact_notes` (`workspace_id`,`contact_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `pipelines` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`is_default` integer DEFAULT false NOT NULL,
	`position` integer NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `pipelines_workspace_position` ON `pipelines` (`workspace_id`,`position`);--> statement-breakpoint
CREATE TABLE `stages` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`pipeline_id` text NOT NULL,
	`name` text NOT NULL,
	`color` text NOT NULL,
	`position` integer NOT NULL,
	`win_probability` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`pipeline_id`) REFERENCES `pipelines`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `stages_pipeline_position` ON `stages` (`pipeline_id`,`position`);--> statement-breakpoint
CREATE UNIQUE INDEX `stages_workspace_id` ON `stages` (`workspace_id`,`id`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`sku` text,
	`external_id` text,
	`description` text,
	`price_cents` integer,
	`vat_mode` text,
	`vat_rate` real,
	`is_active` integer DEFAULT true NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_workspace_sku` ON `products` (`workspace_id`,`sku`);--> statement-breakpoint
CREATE UNIQUE INDEX `products_workspace_external_id` ON `products` (`workspace_id`,`external_id`);--> statement-breakpoint
CREATE INDEX `products_workspace_created` ON `products` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `email_suppressions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`email` text NOT NULL,
	`reason` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_suppressions_workspace_email` ON `email_suppressions` (`workspace_id`,`email`);--> statement-breakpoint
CREATE TABLE `contact_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`color` text,
	`description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contact_groups_workspace_name_key` ON `contact_groups` (`workspace_id`,`name_key`);--> statement-breakpoint
CREATE INDEX `contact_groups_workspace_created` ON `contact_groups` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `tags` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`color` text,
	`description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tags_workspace_name_key` ON `tags` (`workspace_id`,`name_key`);--> statement-breakpoint
CREATE INDEX `tags_workspace_created` ON `tags` (`workspace_id`,`created_at`);--> statement-breakpoint
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
CREATE UNIQUE INDEX `webhook_endpoints_workspace_slot` ON `webhook_endpoints` (`workspace_id`,`slot`);--> statement-breakpoint
CREATE TABLE `request_log` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`api_key_id` text,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`status` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`ip` text,
	`user_agent` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `request_log_workspace_id` ON `request_log` (`workspace_id`,`id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_workspace_email` ON `users` (`workspace_id`,`email`);