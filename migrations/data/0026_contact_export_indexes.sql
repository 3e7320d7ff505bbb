-- A person's records found by index for their data export: email sends by the addresses they were
-- reached at, form submissions by contact.
CREATE INDEX `email_sends_workspace_to` ON `email_sends` (`workspace_id`,`to`);--> statement-breakpoint
CREATE INDEX `form_submissions_contact` ON `form_submissions` (`workspace_id`,`contact_id`);