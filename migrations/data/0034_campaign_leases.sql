-- Campaign fan-outs hold their campaign by a lease their page and chunk messages renew, and a
-- drive number a re-drive moves on (src/modules/email-campaigns/fanout.ts, src/modules/whatsapp/fanout.ts).
-- A campaign already sending when this runs is held as its last progress (`updated_at`) held it.
ALTER TABLE `email_campaigns` ADD `lease_until` text;--> statement-breakpoint
ALTER TABLE `email_campaigns` ADD `drive` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `whatsapp_campaigns` ADD `lease_until` text;--> statement-breakpoint
ALTER TABLE `whatsapp_campaigns` ADD `drive` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `email_campaigns` SET `lease_until` = strftime('%Y-%m-%dT%H:%M:%fZ', `updated_at`, '+60 seconds') WHERE `status` = 'sending';--> statement-breakpoint
UPDATE `whatsapp_campaigns` SET `lease_until` = strftime('%Y-%m-%dT%H:%M:%fZ', `updated_at`, '+60 seconds') WHERE `status` = 'running';
