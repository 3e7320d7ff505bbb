-- Contact search: a trigram index over the searched columns, so substring
-- search of 3+ characters is an index probe instead of a scan of the workspace.
-- External-content table (no copy of the data), kept in sync by triggers.
CREATE VIRTUAL TABLE `contacts_fts` USING fts5(name, first_name, last_name, email, phone, company_name, content='contacts', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_insert` AFTER INSERT ON `contacts` BEGIN
  INSERT INTO contacts_fts(rowid, name, first_name, last_name, email, phone, company_name)
  VALUES (new.rowid, new.name, new.first_name, new.last_name, new.email, new.phone, new.company_name);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_delete` AFTER DELETE ON `contacts` BEGIN
  INSERT INTO contacts_fts(contacts_fts, rowid, name, first_name, last_name, email, phone, company_name)
  VALUES ('delete', old.rowid, old.name, old.first_name, old.last_name, old.email, old.phone, old.company_name);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_update` AFTER UPDATE OF name, first_name, last_name, email, phone, company_name ON `contacts` BEGIN
  INSERT INTO contacts_fts(contacts_fts, rowid, name, first_name, last_name, email, phone, company_name)
  VALUES ('delete', old.rowid, old.name, old.first_name, old.last_name, old.email, old.phone, old.company_name);
  INSERT INTO contacts_fts(rowid, name, first_name, last_name, email, phone, company_name)
  VALUES (new.rowid, new.name, new.first_name, new.last_name, new.email, new.phone, new.company_name);
END;
