-- Payments and deals search per workspace. `payments_fts` and `deals_fts` were keyed by the
-- record's rowid and spanned every workspace of the shard, so a term's candidates were every
-- workspace's matches, each read to keep the workspace's own: one tenant's records made another's
-- search slower. Their replacements, `payments_search` and `deals_search`, file a record under
-- `space * 2^40 + the record's rowid`, the workspace's search space of `contact_search_spaces`
-- (the numbering `contacts_search` uses, migration 0021): one workspace's entries are one rowid
-- range, and a search reads only that range. As before, each index holds its own copy of the four
-- texts (title and the contact's name, phone and email; a term shorter than a trigram tests that
-- copy), kept equal to the record and to its contact by triggers.
DROP TRIGGER `payments_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `payments_fts_update`;
--> statement-breakpoint
DROP TRIGGER `payments_fts_delete`;
--> statement-breakpoint
DROP TRIGGER `deals_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `deals_fts_update`;
--> statement-breakpoint
DROP TRIGGER `deals_fts_delete`;
--> statement-breakpoint
DROP TRIGGER `contacts_record_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `contacts_record_fts_update`;
--> statement-breakpoint
DROP TRIGGER `contacts_record_fts_delete`;
--> statement-breakpoint
DROP TABLE `payments_fts`;
--> statement-breakpoint
DROP TABLE `deals_fts`;
--> statement-breakpoint
-- A space is given with a workspace's first contact, payment or deal, whichever comes first (the
-- triggers below give it too). Workspaces holding payments or deals but no contact get theirs
-- here. This reads every entry of one index of payments and one of deals (no record row): one pass,
-- fine at any size.
INSERT INTO `contact_search_spaces` (workspace_id, space)
  SELECT w.workspace_id, (SELECT coalesce(max(space), 0) FROM contact_search_spaces) + row_number() OVER (ORDER BY w.workspace_id)
  FROM (SELECT workspace_id FROM payments UNION SELECT workspace_id FROM deals) w
  WHERE NOT EXISTS (SELECT 1 FROM contact_search_spaces s WHERE s.workspace_id = w.workspace_id);
--> statement-breakpoint
CREATE VIRTUAL TABLE `payments_search` USING fts5(title, contact_name, contact_phone, contact_email, tokenize='trigram');
--> statement-breakpoint
-- The two fills below are one statement each, as in 0021 and 0023: every record of the shard with
-- a look-up of its space and its contact, every index entry written in the migration's one
-- transaction. That is one pass, proportional to the shard's records; on a shard holding millions
-- of payments or deals one such statement may outlast D1's time limit for a statement, and the
-- fill would be split into rowid ranges (the same statement with `AND p.rowid BETWEEN ? AND ?`),
-- one statement each.
INSERT INTO payments_search (rowid, title, contact_name, contact_phone, contact_email)
  SELECT s.space * 1099511627776 + p.rowid, p.title, c.name, c.phone, c.email
  FROM payments p JOIN contact_search_spaces s ON s.workspace_id = p.workspace_id
  LEFT JOIN contacts c ON c.id = p.contact_id AND c.workspace_id = p.workspace_id;
--> statement-breakpoint
CREATE VIRTUAL TABLE `deals_search` USING fts5(title, contact_name, contact_phone, contact_email, tokenize='trigram');
--> statement-breakpoint
INSERT INTO deals_search (rowid, title, contact_name, contact_phone, contact_email)
  SELECT s.space * 1099511627776 + d.rowid, d.title, c.name, c.phone, c.email
  FROM deals d JOIN contact_search_spaces s ON s.workspace_id = d.workspace_id
  LEFT JOIN contacts c ON c.id = d.contact_id AND c.workspace_id = d.workspace_id;
--> statement-breakpoint
CREATE TRIGGER `payments_search_insert` AFTER INSERT ON `payments` BEGIN
  INSERT INTO contact_search_spaces (workspace_id, space)
    SELECT new.workspace_id, (SELECT coalesce(max(space), 0) + 1 FROM contact_search_spaces)
    WHERE NOT EXISTS (SELECT 1 FROM contact_search_spaces WHERE workspace_id = new.workspace_id);
  INSERT INTO payments_search (rowid, title, contact_name, contact_phone, contact_email)
    SELECT s.space * 1099511627776 + new.rowid, new.title, c.name, c.phone, c.email
    FROM contact_search_spaces s LEFT JOIN contacts c ON c.id = new.contact_id AND c.workspace_id = new.workspace_id
    WHERE s.workspace_id = new.workspace_id;
END;
--> statement-breakpoint
CREATE TRIGGER `payments_search_update` AFTER UPDATE OF title, contact_id, workspace_id ON `payments`
  WHEN old.title IS NOT new.title OR old.contact_id IS NOT new.contact_id OR old.workspace_id IS NOT new.workspace_id BEGIN
  DELETE FROM payments_search WHERE rowid = (SELECT space FROM contact_search_spaces WHERE workspace_id = old.workspace_id) * 1099511627776 + old.rowid;
  INSERT INTO contact_search_spaces (workspace_id, space)
    SELECT new.workspace_id, (SELECT coalesce(max(space), 0) + 1 FROM contact_search_spaces)
    WHERE NOT EXISTS (SELECT 1 FROM contact_search_spaces WHERE workspace_id = new.workspace_id);
  INSERT INTO payments_search (rowid, title, contact_name, contact_phone, contact_email)
    SELECT s.space * 1099511627776 + new.rowid, new.title, c.name, c.phone, c.email
    FROM contact_search_spaces s LEFT JOIN contacts c ON c.id = new.contact_id AND c.workspace_id = new.workspace_id
    WHERE s.workspace_id = new.workspace_id;
END;
--> statement-breakpoint
CREATE TRIGGER `payments_search_delete` AFTER DELETE ON `payments` BEGIN
  DELETE FROM payments_search WHERE rowid = (SELECT space FROM contact_search_spaces WHERE workspace_id = old.workspace_id) * 1099511627776 + old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `deals_search_insert` AFTER INSERT ON `deals` BEGIN
  INSERT INTO contact_search_spaces (workspace_id, space)
    SELECT new.workspace_id, (SELECT coalesce(max(space), 0) + 1 FROM contact_search_spaces)
    WHERE NOT EXISTS (SELECT 1 FROM contact_search_spaces WHERE workspace_id = new.workspace_id);
  INSERT INTO deals_search (rowid, title, contact_name, contact_phone, contact_email)
    SELECT s.space * 1099511627776 + new.rowid, new.title, c.name, c.phone, c.email
    FROM contact_search_spaces s LEFT JOIN contacts c ON c.id = new.contact_id AND c.workspace_id = new.workspace_id
    WHERE s.workspace_id = new.workspace_id;
END;
--> statement-breakpoint
CREATE TRIGGER `deals_search_update` AFTER UPDATE OF title, contact_id, workspace_id ON `deals`
  WHEN old.title IS NOT new.title OR old.contact_id IS NOT new.contact_id OR old.workspace_id IS NOT new.workspace_id BEGIN
  DELETE FROM deals_search WHERE rowid = (SELECT space FROM contact_search_spaces WHERE workspace_id = old.workspace_id) * 1099511627776 + old.rowid;
  INSERT INTO contact_search_spaces (workspace_id, space)
    SELECT new.workspace_id, (SELECT coalesce(max(space), 0) + 1 FROM contact_search_spaces)
    WHERE NOT EXISTS (SELECT 1 FROM contact_search_spaces WHERE workspace_id = new.workspace_id);
  INSERT INTO deals_search (rowid, title, contact_name, contact_phone, contact_email)
    SELECT s.space * 1099511627776 + new.rowid, new.title, c.name, c.phone, c.email
    FROM contact_search_spaces s LEFT JOIN contacts c ON c.id = new.contact_id AND c.workspace_id = new.workspace_id
    WHERE s.workspace_id = new.workspace_id;
END;
--> statement-breakpoint
CREATE TRIGGER `deals_search_delete` AFTER DELETE ON `deals` BEGIN
  DELETE FROM deals_search WHERE rowid = (SELECT space FROM contact_search_spaces WHERE workspace_id = old.workspace_id) * 1099511627776 + old.rowid;
END;
--> statement-breakpoint
-- A contact's identity reaches the index rows of its records when it changes, when the contact
-- is deleted (merged away: its records then show no contact until they move to the target),
-- and when it is created after a record naming it (records are written after their contact,
-- but the index must not depend on that). A workspace holding records has its space (given with
-- its first record at the latest), so each record's entry is its space's start plus its rowid.
CREATE TRIGGER `contacts_record_search_insert` AFTER INSERT ON `contacts` BEGIN
  UPDATE payments_search SET contact_name = new.name, contact_phone = new.phone, contact_email = new.email
    WHERE rowid IN (SELECT s.space * 1099511627776 + p.rowid FROM contact_search_spaces s JOIN payments p ON p.workspace_id = s.workspace_id AND p.contact_id = new.id
      WHERE s.workspace_id = new.workspace_id);
  UPDATE deals_search SET contact_name = new.name, contact_phone = new.phone, contact_email = new.email
    WHERE rowid IN (SELECT s.space * 1099511627776 + d.rowid FROM contact_search_spaces s JOIN deals d ON d.workspace_id = s.workspace_id AND d.contact_id = new.id
      WHERE s.workspace_id = new.workspace_id);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_record_search_update` AFTER UPDATE OF name, phone, email ON `contacts`
  WHEN old.name IS NOT new.name OR old.phone IS NOT new.phone OR old.email IS NOT new.email BEGIN
  UPDATE payments_search SET contact_name = new.name, contact_phone = new.phone, contact_email = new.email
    WHERE rowid IN (SELECT s.space * 1099511627776 + p.rowid FROM contact_search_spaces s JOIN payments p ON p.workspace_id = s.workspace_id AND p.contact_id = new.id
      WHERE s.workspace_id = new.workspace_id);
  UPDATE deals_search SET contact_name = new.name, contact_phone = new.phone, contact_email = new.email
    WHERE rowid IN (SELECT s.space * 1099511627776 + d.rowid FROM contact_search_spaces s JOIN deals d ON d.workspace_id = s.workspace_id AND d.contact_id = new.id
      WHERE s.workspace_id = new.workspace_id);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_record_search_delete` AFTER DELETE ON `contacts` BEGIN
  UPDATE payments_search SET contact_name = NULL, contact_phone = NULL, contact_email = NULL
    WHERE rowid IN (SELECT s.space * 1099511627776 + p.rowid FROM contact_search_spaces s JOIN payments p ON p.workspace_id = s.workspace_id AND p.contact_id = old.id
      WHERE s.workspace_id = old.workspace_id);
  UPDATE deals_search SET contact_name = NULL, contact_phone = NULL, contact_email = NULL
    WHERE rowid IN (SELECT s.space * 1099511627776 + d.rowid FROM contact_search_spaces s JOIN deals d ON d.workspace_id = s.workspace_id AND d.contact_id = old.id
      WHERE s.workspace_id = old.workspace_id);
END;
