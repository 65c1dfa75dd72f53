import type { ColumnType, Generated } from "kysely";
import type { GeneratedTimestamp, OptionalTimestamp, Timestamp } from "../db/columns.ts";

/**
 * The tables the status area owns: The status page: samples, components, incidents, subscribers,
 * provider call counts, worker heartbeats (migrations 0400, 1002, 1090, 1092, 1210).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "status_subscribers",
  "status_confirm_requests",
  "provider_call_stats",
  "worker_heartbeats",
  "status_samples",
  "status_components",
  "status_incidents",
] as const satisfies readonly (keyof StatusTables)[];

export interface StatusTables {
  status_subscribers: StatusSubscribersTable;
  status_confirm_requests: StatusConfirmRequestsTable;
  provider_call_stats: ProviderCallStatsTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  status_samples: StatusSamplesTable;
  status_components: StatusComponentsTable;
  status_incidents: StatusIncidentsTable;
}

export type ComponentStatus = "operational" | "degraded" | "down";

export interface StatusSubscribersTable {
  email: string;
  created_at: GeneratedTimestamp;
  /** The client address that subscribed it (null before migration 0995). */
  ip: string | null;
  /** When the address opened its confirmation link (double opt-in, migration 1002). */
  confirmed_at: OptionalTimestamp;
  confirm_token_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** Confirmation links sent since `confirm_window_start` (a day; migration 1092). */
  confirm_mails: Generated<number>;
  confirm_window_start: OptionalTimestamp;
}

/** Each confirmation link sent, by client address, for the hourly limit (migration 1092). */
export interface StatusConfirmRequestsTable {
  id: Generated<number>;
  ip: string;
  created_at: Date;
}

export interface ProviderCallStatsTable {
  /** Dropbox, Microsoft (OneDrive) and S3 storage since migration 1210. */
  provider: "instagram" | "google" | "dropbox" | "microsoft" | "s3";
  minute: Timestamp;
  calls: Generated<number>;
  errors: Generated<number>;
}

export interface WorkerHeartbeatsTable {
  worker_id: string;
  seen_at: Timestamp;
}

export interface StatusSamplesTable {
  component: string;
  sampled_at: Timestamp;
  status: ComponentStatus;
}

export interface StatusComponentsTable {
  component: string;
  status: ComponentStatus;
  since: Timestamp;
  checked_at: Timestamp;
}

export interface StatusIncidentsTable {
  id: Generated<string>;
  component: string;
  title: string;
  description: string;
  worst_status: "degraded" | "down";
  started_at: Timestamp;
  resolved_at: Timestamp | null;
  /** When subscribers were told it opened / that it resolved (migration 1090). */
  opened_told_at: OptionalTimestamp;
  resolved_told_at: OptionalTimestamp;
}
