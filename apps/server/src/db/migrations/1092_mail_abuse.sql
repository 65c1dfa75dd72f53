-- Issue 35 (mail abuse and tokens).

-- The hourly cap an anonymous request's mail counts against (contact acknowledgements, status
-- confirmations, registration and password-reset mails); null for every other message.
ALTER TABLE mail_outbox ADD COLUMN cap_group text;
CREATE INDEX mail_outbox_cap_idx ON mail_outbox (cap_group, created_at) WHERE cap_group IS NOT NULL;
-- Template data is sealed (AES-256-GCM) from now on and dropped when a message fails: failed
-- rows recorded before this kept their links (reset, verification) in plain text.
UPDATE mail_outbox SET data = NULL WHERE status = 'failed';

-- Status confirmations: how many links an unconfirmed address was sent in its current day
-- (from confirm_window_start), so an address cannot be mailed every 10 minutes for ever.
ALTER TABLE status_subscribers ADD COLUMN confirm_mails integer NOT NULL DEFAULT 0;
ALTER TABLE status_subscribers ADD COLUMN confirm_window_start timestamptz;
-- Each confirmation link sent (a new address or a resend), by client address: the hourly limit
-- per client counts these, so resends count too. Kept a day.
CREATE TABLE status_confirm_requests (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  ip text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX status_confirm_requests_ip_idx ON status_confirm_requests (ip, created_at);

-- Registrations are counted there too (kind 'register'), per client and for everyone together.
CREATE INDEX account_mail_requests_kind_idx ON account_mail_requests (kind, created_at);
