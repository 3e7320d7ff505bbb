-- A name for the index contacts are found by id through: the primary key's own index is named by
-- SQLite (`sqlite_autoindex_contacts_1`), and a statement that names its index (`INDEXED BY`) should
-- name one the schema declares. Same column, unique; the primary key and its index stay.
CREATE UNIQUE INDEX `contacts_id` ON `contacts` (`id`);