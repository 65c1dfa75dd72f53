/**
 * The tables the status area owns: The status page: samples, components, incidents, subscribers, provider call counts, worker heartbeats.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = [
  "status_subscribers",
  "status_confirm_requests",
  "provider_call_stats",
  "worker_heartbeats",
  "status_samples",
  "status_components",
  "status_incidents",
] as const;
