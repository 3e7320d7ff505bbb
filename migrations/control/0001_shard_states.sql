-- The data databases as the operator steers them: open or closed to new workspaces, their size
-- as D1 last reported it and the newest data migration applied to them (read by each sweep). A workspace row naming a closed shard is refused here, in the
-- same write that would place it, so a close wins over any placement already in flight.
CREATE TABLE `shards` (
	`binding` text PRIMARY KEY NOT NULL,
	`state` text DEFAULT 'open' NOT NULL,
	`size_bytes` integer,
	`schema` text,
	`measured_at` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `workspaces_closed_shard` BEFORE INSERT ON `workspaces`
  WHEN EXISTS (SELECT 1 FROM shards WHERE binding = new.shard AND state = 'closed')
BEGIN
  SELECT RAISE(ABORT, 'SHARD_CLOSED');
END;
