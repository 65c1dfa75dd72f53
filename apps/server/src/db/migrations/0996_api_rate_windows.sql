-- Requests per API key and one-minute window, counted in the database so every API process
-- shares one budget (issue 26: each process counted on its own). One upsert counts and decides.
CREATE TABLE api_rate_windows (
  key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (key_id, window_start)
);
