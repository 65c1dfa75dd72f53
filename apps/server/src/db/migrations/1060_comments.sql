-- Comments, for the accounts whose owner opts in (issue 30). The comments area owns these tables.

-- "Also keep comments" per account. `enabled` is what the user asked; `permission_missing_at`
-- is set when Instagram refused to read comments (the grant lacks the comments permission) and
-- cleared by the next read it answers.
CREATE TABLE comment_settings (
  account_id uuid PRIMARY KEY REFERENCES instagram_accounts (id) ON DELETE CASCADE,
  enabled boolean NOT NULL,
  permission_missing_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every comment and reply read, kept when Instagram no longer returns it (`removed_at`).
CREATE TABLE post_comments (
  post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  comment_id text NOT NULL,
  parent_id text,
  username text,
  text text NOT NULL,
  like_count integer,
  hidden boolean NOT NULL DEFAULT false,
  commented_at timestamptz NOT NULL,
  first_seen_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  removed_at timestamptz,
  PRIMARY KEY (post_id, comment_id)
);

-- When each post's comments are read next (the cadence), and its `…_comments.json` in Drive.
CREATE TABLE comment_reads (
  post_id uuid PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES instagram_accounts (id) ON DELETE CASCADE,
  posted_at timestamptz NOT NULL,
  next_read_at timestamptz NOT NULL,
  last_read_at timestamptz,
  drive_file_id text,
  drive_md5 text
);
CREATE INDEX comment_reads_due_idx ON comment_reads (account_id, next_read_at);
