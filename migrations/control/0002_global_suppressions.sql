-- The platform suppression list, read by every shard's sends (a shard added later included).
CREATE TABLE `global_email_suppressions` (
	`email` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`created_at` text NOT NULL
);
