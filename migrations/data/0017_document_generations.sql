-- A contact's documents listing is kept per instance while the rows it is made of stand
-- still: every write to payments, their ledger entries and payment requests moves the
-- workspace's generation of the module that owns the rows, in the write's own transaction.
CREATE TABLE `payment_request_generations` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payment_document_generations` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `payments_document_generation_insert` AFTER INSERT ON `payments` BEGIN
  INSERT INTO payment_document_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payments_document_generation_update` AFTER UPDATE ON `payments` BEGIN
  INSERT INTO payment_document_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payments_document_generation_delete` AFTER DELETE ON `payments` BEGIN
  INSERT INTO payment_document_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_entries_document_generation_insert` AFTER INSERT ON `payment_entries` BEGIN
  INSERT INTO payment_document_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_entries_document_generation_update` AFTER UPDATE ON `payment_entries` BEGIN
  INSERT INTO payment_document_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_entries_document_generation_delete` AFTER DELETE ON `payment_entries` BEGIN
  INSERT INTO payment_document_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_requests_document_generation_insert` AFTER INSERT ON `payment_requests` BEGIN
  INSERT INTO payment_request_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_requests_document_generation_update` AFTER UPDATE ON `payment_requests` BEGIN
  INSERT INTO payment_request_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payment_requests_document_generation_delete` AFTER DELETE ON `payment_requests` BEGIN
  INSERT INTO payment_request_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
