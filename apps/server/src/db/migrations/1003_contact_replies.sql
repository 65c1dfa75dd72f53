-- Admin replies to contact messages (issue 29), owned by the contact area: each is sent by mail
-- (the outbox key is `contact-reply:<id>`) and kept with its message.
CREATE TABLE contact_replies (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  message_id uuid NOT NULL REFERENCES contact_messages (id) ON DELETE CASCADE,
  body text NOT NULL,
  admin_id uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX contact_replies_message_idx ON contact_replies (message_id, created_at);
