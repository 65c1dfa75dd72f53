-- Alerts that resolve themselves (issue 36). `cause` names what an alert is about, without the
-- event's details (e.g. `connection:google:<user>`): while an alert with a cause is open
-- (`resolved_at` is null) no other alert of that cause is recorded; when the cause is fixed the
-- open alert is marked resolved (and read), and a later occurrence is a new alert.
ALTER TABLE notifications ADD COLUMN cause text, ADD COLUMN resolved_at timestamptz;
CREATE UNIQUE INDEX notifications_open_cause ON notifications (cause)
  WHERE cause IS NOT NULL AND resolved_at IS NULL;
