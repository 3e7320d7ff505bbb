-- Contact search per workspace. The trigram index spanned every workspace of the shard, so a
-- term's count read each match's contact to keep the workspace's own. Now each workspace has a
-- number on its shard (its search space, given with its first contact) and a contact's entry is
-- filed under rowid `space * 2^40 + the contact's rowid`: one workspace's matches are one rowid
-- range of the index, counted from the index alone. Contentless (the contact row holds the text;
-- a match needs only the rowid), with deletes by rowid.
CREATE TABLE `contact_search_spaces` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`space` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contact_search_spaces_space` ON `contact_search_spaces` (`space`);
--> statement-breakpoint
CREATE VIRTUAL TABLE `contacts_search` USING fts5(name, first_name, last_name, email, phone, company_name, content='', contentless_delete=1, tokenize='trigram');
--> statement-breakpoint
INSERT INTO `contact_search_spaces` (workspace_id, space)
  SELECT workspace_id, row_number() OVER (ORDER BY workspace_id) FROM (SELECT DISTINCT workspace_id FROM contacts);
--> statement-breakpoint
INSERT INTO `contacts_search` (rowid, name, first_name, last_name, email, phone, company_name)
  SELECT s.space * 1099511627776 + c.rowid, c.name, c.first_name, c.last_name, c.email, c.phone, c.company_name
  FROM contacts c JOIN contact_search_spaces s ON s.workspace_id = c.workspace_id;
--> statement-breakpoint
DROP TRIGGER `contacts_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `contacts_fts_delete`;
--> statement-breakpoint
DROP TRIGGER `contacts_fts_update`;
--> statement-breakpoint
DROP TABLE `contacts_fts`;
--> statement-breakpoint
CREATE TRIGGER `contacts_search_insert` AFTER INSERT ON `contacts` BEGIN
  INSERT INTO contact_search_spaces (workspace_id, space)
    SELECT new.workspace_id, (SELECT coalesce(max(space), 0) + 1 FROM contact_search_spaces)
    WHERE NOT EXISTS (SELECT 1 FROM contact_search_spaces WHERE workspace_id = new.workspace_id);
  INSERT INTO contacts_search (rowid, name, first_name, last_name, email, phone, company_name)
  VALUES ((SELECT space FROM contact_search_spaces WHERE workspace_id = new.workspace_id) * 1099511627776 + new.rowid,
    new.name, new.first_name, new.last_name, new.email, new.phone, new.company_name);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_search_delete` AFTER DELETE ON `contacts` BEGIN
  DELETE FROM contacts_search WHERE rowid = (SELECT space FROM contact_search_spaces WHERE workspace_id = old.workspace_id) * 1099511627776 + old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_search_update` AFTER UPDATE OF name, first_name, last_name, email, phone, company_name ON `contacts` BEGIN
  DELETE FROM contacts_search WHERE rowid = (SELECT space FROM contact_search_spaces WHERE workspace_id = old.workspace_id) * 1099511627776 + old.rowid;
  INSERT INTO contacts_search (rowid, name, first_name, last_name, email, phone, company_name)
  VALUES ((SELECT space FROM contact_search_spaces WHERE workspace_id = new.workspace_id) * 1099511627776 + new.rowid,
    new.name, new.first_name, new.last_name, new.email, new.phone, new.company_name);
END;
