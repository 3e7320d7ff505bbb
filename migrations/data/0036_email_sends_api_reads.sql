-- `GET /v1/emails` reads the API's own sends newest first, by send time or by status, from indexes
-- holding only those sends (campaign and newsletter sends are most rows and write no entry here).
CREATE INDEX `email_sends_api_created` ON `email_sends` (`workspace_id`,`created_at`,`id`) WHERE source = 'api';--> statement-breakpoint
CREATE INDEX `email_sends_api_status` ON `email_sends` (`workspace_id`,`status`,`created_at`,`id`) WHERE source = 'api';