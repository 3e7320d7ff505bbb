-- The default contact-list order, complete (id breaks ties), with the columns filters test most:
-- a filtered page walks these entries newest first and reads only the rows it returns.
DROP INDEX `contacts_workspace_created`;--> statement-breakpoint
CREATE INDEX `contacts_workspace_created` ON `contacts` (`workspace_id`,`created_at`,`id`,`lifecycle_stage`,`lead_score`,`country`,`email_consent_state`,`whatsapp_consent_state`);