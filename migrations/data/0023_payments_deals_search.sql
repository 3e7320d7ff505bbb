-- Search of payments and deals (`search`: the record's title or its contact's name, phone or
-- email). Each table gets a trigram index over exactly those four texts, keyed by the record's
-- rowid, so a term of 3+ characters starts from its matches instead of reading every record of
-- the workspace and its contact. The index holds its own copy of the texts (a shorter term tests
-- that copy, one look-up per record, instead of the contact's row); triggers on both tables keep it
-- equal to the record and to the contact row its `contact_id` names in its workspace.
CREATE VIRTUAL TABLE `payments_fts` USING fts5(title, contact_name, contact_phone, contact_email, tokenize='trigram');
--> statement-breakpoint
INSERT INTO payments_fts (rowid, title, contact_name, contact_phone, contact_email)
  SELECT p.rowid, p.title, c.name, c.phone, c.email FROM payments p LEFT JOIN contacts c ON c.id = p.contact_id AND c.workspace_id = p.workspace_id;
--> statement-breakpoint
CREATE TRIGGER `payments_fts_insert` AFTER INSERT ON `payments` BEGIN
  INSERT INTO payments_fts (rowid, title, contact_name, contact_phone, contact_email)
    SELECT new.rowid, new.title, c.name, c.phone, c.email FROM (SELECT 1) LEFT JOIN contacts c ON c.id = new.contact_id AND c.workspace_id = new.workspace_id;
END;
--> statement-breakpoint
CREATE TRIGGER `payments_fts_update` AFTER UPDATE OF title, contact_id, workspace_id ON `payments`
  WHEN old.title IS NOT new.title OR old.contact_id IS NOT new.contact_id OR old.workspace_id IS NOT new.workspace_id BEGIN
  DELETE FROM payments_fts WHERE rowid = old.rowid;
  INSERT INTO payments_fts (rowid, title, contact_name, contact_phone, contact_email)
    SELECT new.rowid, new.title, c.name, c.phone, c.email FROM (SELECT 1) LEFT JOIN contacts c ON c.id = new.contact_id AND c.workspace_id = new.workspace_id;
END;
--> statement-breakpoint
CREATE TRIGGER `payments_fts_delete` AFTER DELETE ON `payments` BEGIN
  DELETE FROM payments_fts WHERE rowid = old.rowid;
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `deals_fts` USING fts5(title, contact_name, contact_phone, contact_email, tokenize='trigram');
--> statement-breakpoint
INSERT INTO deals_fts (rowid, title, contact_name, contact_phone, contact_email)
  SELECT d.rowid, d.title, c.name, c.phone, c.email FROM deals d LEFT JOIN contacts c ON c.id = d.contact_id AND c.workspace_id = d.workspace_id;
--> statement-breakpoint
CREATE TRIGGER `deals_fts_insert` AFTER INSERT ON `deals` BEGIN
  INSERT INTO deals_fts (rowid, title, contact_name, contact_phone, contact_email)
    SELECT new.rowid, new.title, c.name, c.phone, c.email FROM (SELECT 1) LEFT JOIN contacts c ON c.id = new.contact_id AND c.workspace_id = new.workspace_id;
END;
--> statement-breakpoint
CREATE TRIGGER `deals_fts_update` AFTER UPDATE OF title, contact_id, workspace_id ON `deals`
  WHEN old.title IS NOT new.title OR old.contact_id IS NOT new.contact_id OR old.workspace_id IS NOT new.workspace_id BEGIN
  DELETE FROM deals_fts WHERE rowid = old.rowid;
  INSERT INTO deals_fts (rowid, title, contact_name, contact_phone, contact_email)
    SELECT new.rowid, new.title, c.name, c.phone, c.email FROM (SELECT 1) LEFT JOIN contacts c ON c.id = new.contact_id AND c.workspace_id = new.workspace_id;
END;
--> statement-breakpoint
CREATE TRIGGER `deals_fts_delete` AFTER DELETE ON `deals` BEGIN
  DELETE FROM deals_fts WHERE rowid = old.rowid;
END;
--> statement-breakpoint
-- A contact's identity reaches the index rows of its records when it changes, when the contact
-- is deleted (merged away: its records then show no contact until they move to the target),
-- and when it is created after a record naming it (records are written after their contact,
-- but the index must not depend on that).
CREATE TRIGGER `contacts_record_fts_insert` AFTER INSERT ON `contacts` BEGIN
  UPDATE payments_fts SET contact_name = new.name, contact_phone = new.phone, contact_email = new.email
    WHERE rowid IN (SELECT rowid FROM payments WHERE workspace_id = new.workspace_id AND contact_id = new.id);
  UPDATE deals_fts SET contact_name = new.name, contact_phone = new.phone, contact_email = new.email
    WHERE rowid IN (SELECT rowid FROM deals WHERE workspace_id = new.workspace_id AND contact_id = new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_record_fts_update` AFTER UPDATE OF name, phone, email ON `contacts`
  WHEN old.name IS NOT new.name OR old.phone IS NOT new.phone OR old.email IS NOT new.email BEGIN
  UPDATE payments_fts SET contact_name = new.name, contact_phone = new.phone, contact_email = new.email
    WHERE rowid IN (SELECT rowid FROM payments WHERE workspace_id = new.workspace_id AND contact_id = new.id);
  UPDATE deals_fts SET contact_name = new.name, contact_phone = new.phone, contact_email = new.email
    WHERE rowid IN (SELECT rowid FROM deals WHERE workspace_id = new.workspace_id AND contact_id = new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_record_fts_delete` AFTER DELETE ON `contacts` BEGIN
  UPDATE payments_fts SET contact_name = NULL, contact_phone = NULL, contact_email = NULL
    WHERE rowid IN (SELECT rowid FROM payments WHERE workspace_id = old.workspace_id AND contact_id = old.id);
  UPDATE deals_fts SET contact_name = NULL, contact_phone = NULL, contact_email = NULL
    WHERE rowid IN (SELECT rowid FROM deals WHERE workspace_id = old.workspace_id AND contact_id = old.id);
END;
