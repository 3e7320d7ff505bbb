-- Country is a common segment: filters on it (alone, or narrowing other conditions) read one index range.
CREATE INDEX `contacts_workspace_country` ON `contacts` (`workspace_id`,`country`);