-- The client address that subscribed an e-mail to status updates, for the per-address limit on
-- /api/status/subscribe (issue 26: one client subscribed 30 strangers). Earlier rows have none.
ALTER TABLE status_subscribers ADD COLUMN ip text;
CREATE INDEX status_subscribers_ip_idx ON status_subscribers (ip, created_at) WHERE ip IS NOT NULL;
