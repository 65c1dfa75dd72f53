-- Status incident mails (issue 29), told exactly once even across a crash: an incident records
-- when its subscribers were told it opened and that it resolved. A sample that finds an
-- incident not yet told (the worker died between recording the incident and queuing its mails,
-- or queuing failed) tells it then; each mail's outbox key keeps a retry from sending twice.
ALTER TABLE status_incidents
  ADD COLUMN opened_told_at timestamptz,
  ADD COLUMN resolved_told_at timestamptz;
-- Incidents from before were told (or not) as they happened: none is told again.
UPDATE status_incidents SET opened_told_at = started_at, resolved_told_at = resolved_at;
CREATE INDEX status_incidents_untold_idx ON status_incidents (started_at)
  WHERE opened_told_at IS NULL OR (resolved_at IS NOT NULL AND resolved_told_at IS NULL);
