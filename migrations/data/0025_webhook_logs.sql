-- Webhook events and delivery logs: the events of a workspace newest first (with and without a
-- type), an endpoint's deliveries newest first (with and without a status), and the creation-time
-- indexes the 30-day retention sweep walks.
DROP INDEX `webhook_deliveries_endpoint_state`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_created` ON `webhook_deliveries` (`endpoint_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created` ON `webhook_deliveries` (`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_state_created` ON `webhook_deliveries` (`endpoint_id`,`state`,`created_at`);--> statement-breakpoint
CREATE INDEX `event_outbox_workspace_created` ON `event_outbox` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `event_outbox_workspace_type_created` ON `event_outbox` (`workspace_id`,`type`,`created_at`);--> statement-breakpoint
CREATE INDEX `event_outbox_created` ON `event_outbox` (`created_at`);