-- Kept list answers stay exact: every write to the rows a module's lists show moves the
-- workspace's generation of that module, through these triggers, in the write's own
-- transaction, so no write path can forget to; an answer kept at an older generation is
-- never served.
CREATE TABLE `deal_list_generations` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `newsletter_list_generations` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `order_list_generations` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `deals_list_generation_insert` AFTER INSERT ON `deals` BEGIN
  INSERT INTO deal_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `deals_list_generation_update` AFTER UPDATE ON `deals` BEGIN
  INSERT INTO deal_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `deals_list_generation_delete` AFTER DELETE ON `deals` BEGIN
  INSERT INTO deal_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `orders_list_generation_insert` AFTER INSERT ON `orders` BEGIN
  INSERT INTO order_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `orders_list_generation_update` AFTER UPDATE ON `orders` BEGIN
  INSERT INTO order_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `orders_list_generation_delete` AFTER DELETE ON `orders` BEGIN
  INSERT INTO order_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `newsletters_list_generation_insert` AFTER INSERT ON `newsletters` BEGIN
  INSERT INTO newsletter_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `newsletters_list_generation_update` AFTER UPDATE ON `newsletters` BEGIN
  INSERT INTO newsletter_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `newsletters_list_generation_delete` AFTER DELETE ON `newsletters` BEGIN
  INSERT INTO newsletter_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `newsletter_subscriptions_list_generation_insert` AFTER INSERT ON `newsletter_subscriptions` BEGIN
  INSERT INTO newsletter_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `newsletter_subscriptions_list_generation_update` AFTER UPDATE ON `newsletter_subscriptions` BEGIN
  INSERT INTO newsletter_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `newsletter_subscriptions_list_generation_delete` AFTER DELETE ON `newsletter_subscriptions` BEGIN
  INSERT INTO newsletter_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `newsletter_issues_list_generation_insert` AFTER INSERT ON `newsletter_issues` BEGIN
  INSERT INTO newsletter_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `newsletter_issues_list_generation_update` AFTER UPDATE ON `newsletter_issues` BEGIN
  INSERT INTO newsletter_list_generations (workspace_id, generation) VALUES (new.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `newsletter_issues_list_generation_delete` AFTER DELETE ON `newsletter_issues` BEGIN
  INSERT INTO newsletter_list_generations (workspace_id, generation) VALUES (old.workspace_id, 1)
    ON CONFLICT (workspace_id) DO UPDATE SET generation = generation + 1;
END;
