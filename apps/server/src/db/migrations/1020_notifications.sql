-- Alerts and the in-app notification centre (issue 29). The notifications area owns these tables
-- (notifications/notifications.repository.ts).

-- One row per event a user is told about (the bell); event_key is the event's identity, the
-- same key the mail outbox records, so a second detection of one event adds nothing.
CREATE TABLE notifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  event_key text NOT NULL UNIQUE,
  category text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  -- The fix: a button label and an in-app path (e.g. /settings?tab=connections).
  action_label text,
  action_path text,
  -- What the mail layer did: the outbox id, or why nothing was sent.
  mail_id uuid,
  mail_skipped text,
  created_at timestamptz NOT NULL DEFAULT now(),
  read_at timestamptz
);
CREATE INDEX notifications_user_created ON notifications (user_id, created_at DESC);
CREATE INDEX notifications_user_unread ON notifications (user_id) WHERE read_at IS NULL;

-- Backups that failed for good, kept until the day's summary of their account names them.
CREATE TABLE notification_backup_failures (
  post_id uuid PRIMARY KEY,
  account_id uuid NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  reason text NOT NULL,
  message text NOT NULL,
  failed_at timestamptz NOT NULL
);
CREATE INDEX notification_backup_failures_account ON notification_backup_failures (account_id, failed_at);

-- Things already reported once (a lost story), so a later check does not report them again.
CREATE TABLE notification_marks (
  kind text NOT NULL,
  subject text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, subject)
);
