-- Column indexes end with the id: sorts on the column walk them in full order, and filters on the
-- column (eq, starts_with) read the matching ids from the index alone; the consent ones (like the
-- lifecycle one) hold the creation time next, so a page of one state, newest first, walks its range.
-- First name and country join them.
DROP INDEX `contacts_workspace_name`;--> statement-breakpoint
DROP INDEX `contacts_workspace_last_name`;--> statement-breakpoint
DROP INDEX `contacts_workspace_company`;--> statement-breakpoint
DROP INDEX `contacts_workspace_lifecycle`;--> statement-breakpoint
DROP INDEX `contacts_workspace_score`;--> statement-breakpoint
DROP INDEX `contacts_workspace_wa_consent`;--> statement-breakpoint
DROP INDEX `contacts_workspace_email_consent`;--> statement-breakpoint
CREATE INDEX `contacts_workspace_first_name` ON `contacts` (`workspace_id`,`first_name`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_country` ON `contacts` (`workspace_id`,`country`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_name` ON `contacts` (`workspace_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_last_name` ON `contacts` (`workspace_id`,`last_name`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_company` ON `contacts` (`workspace_id`,`company_name`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_lifecycle` ON `contacts` (`workspace_id`,`lifecycle_stage`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_score` ON `contacts` (`workspace_id`,`lead_score`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_wa_consent` ON `contacts` (`workspace_id`,`whatsapp_consent_state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_workspace_email_consent` ON `contacts` (`workspace_id`,`email_consent_state`,`created_at`,`id`);