ALTER TABLE `email_campaigns` ADD `link_origin` text;--> statement-breakpoint
ALTER TABLE `newsletter_issues` ADD `link_origin` text;