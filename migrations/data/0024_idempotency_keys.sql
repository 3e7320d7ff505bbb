-- `Idempotency-Key` on `/v1` POSTs: a request's claim on its key in the workspace, then the answer
-- it gave, replayed for a retry. Kept at least 24 hours; the sweep forgets rows by creation time.
CREATE TABLE `idempotency_keys` (
	`workspace_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`state` text NOT NULL,
	`claim` text NOT NULL,
	`lease_until` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`response_type` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created` ON `idempotency_keys` (`created_at`);