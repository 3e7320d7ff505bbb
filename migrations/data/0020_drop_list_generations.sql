-- Lists and a contact's documents are computed on every read: an answer kept in one Worker
-- instance rarely served a client whose requests spread over many, and these counters cost
-- every write to the rows they watched. Triggers first, since they write the tables.
DROP TRIGGER IF EXISTS `deals_list_generation_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `deals_list_generation_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `deals_list_generation_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `orders_list_generation_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `orders_list_generation_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `orders_list_generation_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `newsletters_list_generation_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `newsletters_list_generation_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `newsletters_list_generation_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `newsletter_subscriptions_list_generation_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `newsletter_subscriptions_list_generation_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `newsletter_subscriptions_list_generation_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `newsletter_issues_list_generation_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `newsletter_issues_list_generation_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `newsletter_issues_list_generation_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `payments_document_generation_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `payments_document_generation_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `payments_document_generation_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `payment_entries_document_generation_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `payment_entries_document_generation_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `payment_entries_document_generation_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `payment_requests_document_generation_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `payment_requests_document_generation_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `payment_requests_document_generation_delete`;--> statement-breakpoint
