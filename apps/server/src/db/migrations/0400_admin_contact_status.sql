-- Messages from the /contact form; admins read them in the admin Inbox.
CREATE TABLE contact_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  email text NOT NULL,
  subject text NOT NULL,
  message text NOT NULL,
  -- The client address, for the per-address rate limit.
  ip text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  handled_at timestamptz,
  handled_by uuid REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX contact_messages_created_idx ON contact_messages (created_at DESC, id);
CREATE INDEX contact_messages_ip_idx ON contact_messages (ip, created_at);

-- E-mail addresses subscribed to status updates (lower-cased, one row each).
CREATE TABLE status_subscribers (
  email text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Provider calls per provider and minute, from every process; error rates come from here.
CREATE TABLE provider_call_stats (
  provider text NOT NULL CHECK (provider IN ('instagram', 'google')),
  minute timestamptz NOT NULL,
  calls integer NOT NULL DEFAULT 0,
  errors integer NOT NULL DEFAULT 0,
  PRIMARY KEY (provider, minute)
);

-- The last time each worker process ran the status sampler (or started).
CREATE TABLE worker_heartbeats (
  worker_id text PRIMARY KEY,
  seen_at timestamptz NOT NULL
);

-- One sample per component per minute, recorded by a worker; 90-day uptime comes from here.
CREATE TABLE status_samples (
  component text NOT NULL,
  sampled_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('operational', 'degraded', 'down')),
  PRIMARY KEY (component, sampled_at)
);

-- Each component's current status and since when it has had it.
CREATE TABLE status_components (
  component text PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('operational', 'degraded', 'down')),
  since timestamptz NOT NULL,
  checked_at timestamptz NOT NULL
);

-- Incidents: opened when a component is not operational for more than 5 minutes.
CREATE TABLE status_incidents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  component text NOT NULL,
  title text NOT NULL,
  description text NOT NULL,
  worst_status text NOT NULL CHECK (worst_status IN ('degraded', 'down')),
  started_at timestamptz NOT NULL,
  resolved_at timestamptz
);
CREATE UNIQUE INDEX status_incidents_one_open_idx ON status_incidents (component)
  WHERE resolved_at IS NULL;
CREATE INDEX status_incidents_started_idx ON status_incidents (started_at DESC);
