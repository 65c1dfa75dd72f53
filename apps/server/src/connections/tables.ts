/**
 * The tables the connections area owns: The Instagram accounts and the Google Drive connection of each user, and OAuth states.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = [
  "oauth_states",
  "instagram_accounts",
  "google_connections",
  "data_deletion_requests",
] as const;
