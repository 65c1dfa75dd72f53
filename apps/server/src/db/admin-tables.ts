import type { ColumnType, Generated } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "./columns.ts";

/** Table types of the admin inbox and the status page (migration 0400). */

export type ComponentStatus = "operational" | "degraded" | "down";

export interface ContactMessagesTable {
  id: Generated<string>;
  name: string;
  email: string;
  subject: string;
  message: string;
  ip: string;
  created_at: GeneratedTimestamp;
  handled_at: Timestamp | null;
  handled_by: string | null;
}

export interface ContactRepliesTable {
  id: Generated<string>;
  message_id: string;
  body: string;
  admin_id: string | null;
  created_at: Timestamp;
}

/** Each confirmation link sent, by client address, for the hourly limit (migration 1092). */
export interface StatusConfirmRequestsTable {
  id: Generated<string>;
  ip: string;
  created_at: Date;
}

export interface StatusSubscribersTable {
  email: string;
  created_at: GeneratedTimestamp;
  /** The client address that subscribed it (null before migration 0995). */
  ip: string | null;
  /** When the address opened its confirmation link (double opt-in, migration 1002). */
  confirmed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  confirm_token_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** Confirmation links sent since `confirm_window_start` (a day; migration 1092). */
  confirm_mails: Generated<number>;
  confirm_window_start: ColumnType<
    Date | null,
    Date | string | null | undefined,
    Date | string | null
  >;
}

export interface ProviderCallStatsTable {
  provider: "instagram" | "google";
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
  opened_told_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  resolved_told_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface AdminTables {
  contact_messages: ContactMessagesTable;
  contact_replies: ContactRepliesTable;
  status_subscribers: StatusSubscribersTable;
  status_confirm_requests: StatusConfirmRequestsTable;
  provider_call_stats: ProviderCallStatsTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  status_samples: StatusSamplesTable;
  status_components: StatusComponentsTable;
  status_incidents: StatusIncidentsTable;
}
