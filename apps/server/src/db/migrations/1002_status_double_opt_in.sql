-- Status updates by e-mail (issue 29), owned by the status area: double opt-in. An address gets
-- incident mails only once it opened the confirmation link; until then it gets nothing else.
-- Addresses added before this had never confirmed, so they start unconfirmed.
ALTER TABLE status_subscribers ADD COLUMN confirmed_at timestamptz;
-- SHA-256 of the confirmation link's token (the latest one sent).
ALTER TABLE status_subscribers ADD COLUMN confirm_token_hash text;
CREATE UNIQUE INDEX status_subscribers_token_idx ON status_subscribers (confirm_token_hash)
  WHERE confirm_token_hash IS NOT NULL;
CREATE INDEX status_subscribers_confirmed_idx ON status_subscribers (email)
  WHERE confirmed_at IS NOT NULL;
