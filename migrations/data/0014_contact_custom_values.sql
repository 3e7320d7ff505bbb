-- custom_fields as rows, for indexed custom-field conditions; tag and group
-- holders countable per workspace from link index entries alone.
CREATE TABLE `contact_custom_values` (
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`key` text NOT NULL,
	`value` blob,
	PRIMARY KEY(`contact_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `contact_custom_values_lookup` ON `contact_custom_values` (`workspace_id`,`key`,`value`);--> statement-breakpoint
DROP INDEX `contact_group_links_group`;--> statement-breakpoint
CREATE INDEX `contact_group_links_group` ON `contact_group_links` (`group_id`,`workspace_id`,`contact_id`);--> statement-breakpoint
DROP INDEX `contact_tag_links_tag`;--> statement-breakpoint
CREATE INDEX `contact_tag_links_tag` ON `contact_tag_links` (`tag_id`,`workspace_id`,`contact_id`);--> statement-breakpoint
INSERT OR IGNORE INTO `contact_custom_values` (workspace_id, contact_id, key, value)
  SELECT c.workspace_id, c.id, j.key, j.value FROM contacts c, json_each(c.custom_fields) j WHERE j.type <> 'null';
--> statement-breakpoint
-- OR IGNORE: of a duplicated key the first stays, as json_extract reads it.
CREATE TRIGGER `contacts_custom_values_insert` AFTER INSERT ON `contacts` WHEN new.custom_fields <> '{}' BEGIN
  INSERT OR IGNORE INTO contact_custom_values (workspace_id, contact_id, key, value)
    SELECT new.workspace_id, new.id, j.key, j.value FROM json_each(new.custom_fields) j WHERE j.type <> 'null';
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_custom_values_update` AFTER UPDATE OF custom_fields ON `contacts` WHEN old.custom_fields IS NOT new.custom_fields BEGIN
  DELETE FROM contact_custom_values WHERE contact_id = old.id;
  INSERT OR IGNORE INTO contact_custom_values (workspace_id, contact_id, key, value)
    SELECT new.workspace_id, new.id, j.key, j.value FROM json_each(new.custom_fields) j WHERE j.type <> 'null';
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_custom_values_delete` AFTER DELETE ON `contacts` BEGIN
  DELETE FROM contact_custom_values WHERE contact_id = old.id;
END;
