-- Cached contact-list answers stay exact: every write to what a list can
-- filter, search or sort on moves the workspace's generation, through these
-- triggers, so no write path can forget to; an answer cached at an older
-- generation is never served.
CREATE TABLE `contact_list_cache` (
	`workspace_id` text NOT NULL,
	`key` text NOT NULL,
	`generation` integer NOT NULL,
	`total` integer NOT NULL,
	`contact_ids` text NOT NULL,
	`cached_at` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `contact_list_generations` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `contacts_list_generation_insert` AFTER INSERT ON `contacts` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_list_generation_update` AFTER UPDATE ON `contacts` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_list_generation_delete` AFTER DELETE ON `contacts` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_identifiers_list_generation_insert` AFTER INSERT ON `contact_identifiers` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_identifiers_list_generation_update` AFTER UPDATE ON `contact_identifiers` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_identifiers_list_generation_delete` AFTER DELETE ON `contact_identifiers` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_tag_links_list_generation_insert` AFTER INSERT ON `contact_tag_links` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_tag_links_list_generation_update` AFTER UPDATE ON `contact_tag_links` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_tag_links_list_generation_delete` AFTER DELETE ON `contact_tag_links` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_group_links_list_generation_insert` AFTER INSERT ON `contact_group_links` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_group_links_list_generation_update` AFTER UPDATE ON `contact_group_links` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_group_links_list_generation_delete` AFTER DELETE ON `contact_group_links` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `event_attendances_list_generation_insert` AFTER INSERT ON `event_attendances` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `event_attendances_list_generation_update` AFTER UPDATE ON `event_attendances` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `event_attendances_list_generation_delete` AFTER DELETE ON `event_attendances` BEGIN
  INSERT INTO contact_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
