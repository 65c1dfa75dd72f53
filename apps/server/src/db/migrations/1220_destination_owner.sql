-- Issue 38: a destination connected again as another account (another Google account, Dropbox
-- account, Microsoft account, S3 bucket or prefix) is another place. Each record of a file
-- says in which account it was written (`owner`: the Google sub, or the connection's
-- external_id), and each backup in which account it was completed; a backup completed in
-- another account than the one connected now is copied again, once, into the new one. An empty
-- owner is unknown (written before this migration by a user with no connection of that kind
-- then): the next connection of that kind takes it as its own, as before. An import's files
-- record their account too: one recorded in another account is written again into this one.

ALTER TABLE backups ADD COLUMN owner text NOT NULL DEFAULT '';
ALTER TABLE backup_files ADD COLUMN owner text NOT NULL DEFAULT '';
ALTER TABLE comment_reads ADD COLUMN drive_owner text NOT NULL DEFAULT '';
ALTER TABLE import_files ADD COLUMN owner text NOT NULL DEFAULT '';

UPDATE backups b SET owner = g.google_sub
  FROM google_connections g
  WHERE b.destination = 'google_drive' AND g.user_id = b.user_id;
UPDATE backups b SET owner = d.external_id
  FROM destination_connections d
  WHERE d.kind = b.destination AND d.user_id = b.user_id;
UPDATE backup_files f SET owner = b.owner
  FROM backups b
  WHERE b.id = f.backup_id AND f.destination = b.destination AND b.owner <> '';
UPDATE comment_reads c SET drive_owner = b.owner
  FROM backups b
  WHERE b.post_id = c.post_id AND b.destination = c.drive_destination;
UPDATE import_files f SET owner = g.google_sub
  FROM import_items i JOIN google_connections g ON g.user_id = i.user_id
  WHERE f.item_id = i.id AND i.destination = 'google_drive';
UPDATE import_files f SET owner = d.external_id
  FROM import_items i JOIN destination_connections d ON d.user_id = i.user_id AND d.kind = i.destination
  WHERE f.item_id = i.id;

ALTER TABLE backup_files DROP CONSTRAINT backup_files_pkey;
ALTER TABLE backup_files ADD PRIMARY KEY (backup_id, destination, owner, item_key);
