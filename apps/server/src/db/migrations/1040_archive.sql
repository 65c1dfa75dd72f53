-- The archive (issue 30): each post's engagement history and whether it is still on Instagram.
-- Keyed by account and Instagram id (what a media page gives), owned by the archive area.

-- One reading of a post's counters: at backup (first seen), about 1, 7 and 30 days after
-- posting, and at each full walk. NULL: Instagram did not return the counter (hidden counts,
-- or a counter the API version does not have).
CREATE TABLE post_metrics (
  account_id uuid NOT NULL REFERENCES instagram_accounts (id) ON DELETE CASCADE,
  instagram_id text NOT NULL,
  at timestamptz NOT NULL,
  reason text NOT NULL CHECK (reason IN ('backup', 'day_1', 'day_7', 'day_30', 'walk')),
  likes integer,
  comments integer,
  views integer,
  saves integer,
  shares integer,
  reposts integer,
  PRIMARY KEY (account_id, instagram_id, at)
);

-- Every feed post (not stories: their 24-hour expiry is not a deletion) the media list showed,
-- when a walk of the whole list last saw it, and since when walks miss it.
CREATE TABLE post_presence (
  account_id uuid NOT NULL REFERENCES instagram_accounts (id) ON DELETE CASCADE,
  instagram_id text NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  posted_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  -- The start of the first walk that missed it, and of the latest one (NULL: seen by the last walk).
  first_missed_at timestamptz,
  last_missed_at timestamptz,
  -- Confirmed gone: missing from two walks 24 h apart and GET /{media-id} answered 100/33.
  gone_detected_at timestamptz,
  PRIMARY KEY (account_id, instagram_id)
);
CREATE INDEX post_presence_gone_idx ON post_presence (user_id, gone_detected_at DESC)
  WHERE gone_detected_at IS NOT NULL;
CREATE INDEX post_presence_missed_idx ON post_presence (account_id)
  WHERE first_missed_at IS NOT NULL;

-- Per account: the last full walk of the media list and the profile's media_count at that time.
CREATE TABLE archive_walks (
  account_id uuid PRIMARY KEY REFERENCES instagram_accounts (id) ON DELETE CASCADE,
  last_walk_at timestamptz NOT NULL,
  media_count integer
);
