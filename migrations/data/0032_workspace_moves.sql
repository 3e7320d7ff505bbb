CREATE TABLE `move_changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`move_id` text NOT NULL,
	`tbl` text NOT NULL,
	`key` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `move_changes_move_seq` ON `move_changes` (`move_id`,`seq`);--> statement-breakpoint
CREATE TABLE `move_marks` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`move_id` text NOT NULL,
	`role` text NOT NULL
);

--> statement-breakpoint
-- Copies are not events: while a workspace's rows arrive on a shard (a move's copy) or are cleared
-- from its old one, the triggers that count (list generations) or apply a rule (a refund applying
-- itself to its charge) stay still; the copied counters and charges already hold their effect.
-- The triggers that derive indexes (search, custom values) keep running: the copy needs them.
DROP TRIGGER `contacts_list_generation_insert`;
--> statement-breakpoint
CREATE TRIGGER `contacts_list_generation_insert` AFTER INSERT ON `contacts`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contacts_list_generation_update`;
--> statement-breakpoint
CREATE TRIGGER `contacts_list_generation_update` AFTER UPDATE ON `contacts`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contacts_list_generation_delete`;
--> statement-breakpoint
CREATE TRIGGER `contacts_list_generation_delete` AFTER DELETE ON `contacts`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = old.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contact_identifiers_list_generation_insert`;
--> statement-breakpoint
CREATE TRIGGER `contact_identifiers_list_generation_insert` AFTER INSERT ON `contact_identifiers`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contact_identifiers_list_generation_update`;
--> statement-breakpoint
CREATE TRIGGER `contact_identifiers_list_generation_update` AFTER UPDATE ON `contact_identifiers`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contact_identifiers_list_generation_delete`;
--> statement-breakpoint
CREATE TRIGGER `contact_identifiers_list_generation_delete` AFTER DELETE ON `contact_identifiers`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = old.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contact_tag_links_list_generation_insert`;
--> statement-breakpoint
CREATE TRIGGER `contact_tag_links_list_generation_insert` AFTER INSERT ON `contact_tag_links`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contact_tag_links_list_generation_update`;
--> statement-breakpoint
CREATE TRIGGER `contact_tag_links_list_generation_update` AFTER UPDATE ON `contact_tag_links`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contact_tag_links_list_generation_delete`;
--> statement-breakpoint
CREATE TRIGGER `contact_tag_links_list_generation_delete` AFTER DELETE ON `contact_tag_links`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = old.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contact_group_links_list_generation_insert`;
--> statement-breakpoint
CREATE TRIGGER `contact_group_links_list_generation_insert` AFTER INSERT ON `contact_group_links`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contact_group_links_list_generation_update`;
--> statement-breakpoint
CREATE TRIGGER `contact_group_links_list_generation_update` AFTER UPDATE ON `contact_group_links`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `contact_group_links_list_generation_delete`;
--> statement-breakpoint
CREATE TRIGGER `contact_group_links_list_generation_delete` AFTER DELETE ON `contact_group_links`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = old.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `event_attendances_list_generation_insert`;
--> statement-breakpoint
CREATE TRIGGER `event_attendances_list_generation_insert` AFTER INSERT ON `event_attendances`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `event_attendances_list_generation_update`;
--> statement-breakpoint
CREATE TRIGGER `event_attendances_list_generation_update` AFTER UPDATE ON `event_attendances`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `event_attendances_list_generation_delete`;
--> statement-breakpoint
CREATE TRIGGER `event_attendances_list_generation_delete` AFTER DELETE ON `event_attendances`
WHEN NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = old.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
DROP TRIGGER `payment_entries_refund_applies`;
--> statement-breakpoint
CREATE TRIGGER `payment_entries_refund_applies` AFTER INSERT ON `payment_entries`
WHEN new.kind = 'refund' AND new.refunds_entry_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM move_marks WHERE workspace_id = new.workspace_id AND role IN ('arriving', 'clearing')) BEGIN
  UPDATE payment_entries
    SET refunded_cents = CASE WHEN status = 'completed' AND refunded_cents - new.amount_cents <= recognized_cents THEN refunded_cents - new.amount_cents ELSE NULL END,
        updated_at = new.created_at
    WHERE id = new.refunds_entry_id AND workspace_id = new.workspace_id;
  UPDATE payments
    SET arrangement_status = CASE WHEN type = 'one_time' AND (SELECT refunded_cents >= recognized_cents FROM payment_entries WHERE id = new.refunds_entry_id) THEN 'cancelled' ELSE arrangement_status END,
        updated_at = new.created_at
    WHERE id = new.payment_id AND workspace_id = new.workspace_id;
END;
