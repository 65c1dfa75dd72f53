-- Issue 38: the status page judges every backup destination. Calls to Dropbox, Microsoft
-- (Graph's OneDrive and its sign-in) and S3-compatible storage are counted beside Instagram's
-- and Google's; each destination's component is listed once Keepsake has called it.
ALTER TABLE provider_call_stats DROP CONSTRAINT IF EXISTS provider_call_stats_provider_check;
ALTER TABLE provider_call_stats ADD CONSTRAINT provider_call_stats_provider_check
  CHECK (provider IN ('instagram', 'google', 'dropbox', 'microsoft', 's3'));
