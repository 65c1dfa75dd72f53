-- A re-consent started for one account (issue 36): why Keepsake sent the person to the provider
-- ('comments': the comments permission; 'stories': the same account through Facebook Login) and
-- which account, so the dashboard says on return what changed instead of "connected".
ALTER TABLE oauth_states ADD COLUMN purpose text;
ALTER TABLE oauth_states ADD COLUMN purpose_username text;
