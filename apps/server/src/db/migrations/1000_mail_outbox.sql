-- Mail (issue 29). The mail area owns these tables (mail/mail.repository.ts).

-- Every message Keepsake sends: a row per event (idempotency_key), then a pg-boss job that
-- delivers it. status: queued (waiting for its next attempt), sending (claimed by a worker until
-- lease_until; phase says how far: 'connecting' before the SMTP DATA command, 'data' during it),
-- sent, failed (reason in last_error).
CREATE TABLE mail_outbox (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  idempotency_key text NOT NULL UNIQUE,
  category text NOT NULL,
  template text NOT NULL,
  -- Who it is for: 'user:<uuid>' for a user, 'address:<lower-case e-mail>' for anyone else.
  recipient text NOT NULL,
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  to_address text NOT NULL,
  subject text NOT NULL,
  -- The template's data until the message is sent (links with tokens are not kept afterwards).
  data jsonb,
  message_id text NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
  phase text CHECK (phase IN ('connecting', 'data')),
  attempts integer NOT NULL DEFAULT 0,
  lease_until timestamptz,
  next_attempt_at timestamptz NOT NULL,
  last_error text,
  smtp_response text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX mail_outbox_created_idx ON mail_outbox (created_at DESC, id);
CREATE INDEX mail_outbox_pending_idx ON mail_outbox (next_attempt_at)
  WHERE status IN ('queued', 'sending');
CREATE INDEX mail_outbox_user_idx ON mail_outbox (user_id) WHERE user_id IS NOT NULL;

-- A recipient's choice per category; no row means the category's default.
CREATE TABLE mail_preferences (
  recipient text NOT NULL,
  category text NOT NULL,
  enabled boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (recipient, category)
);
