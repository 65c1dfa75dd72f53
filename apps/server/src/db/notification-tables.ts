import type { Generated } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "./columns.ts";

/** Table types of the notifications area (migration 1020). */

export interface NotificationsTable {
  id: Generated<string>;
  user_id: string;
  event_key: string;
  category: string;
  title: string;
  body: string;
  action_label: string | null;
  action_path: string | null;
  mail_id: string | null;
  mail_skipped: string | null;
  created_at: GeneratedTimestamp;
  read_at: Timestamp | null;
  /** What the alert is about (migration 1111): one open alert per cause. */
  cause: string | null;
  resolved_at: Timestamp | null;
}

export interface NotificationBackupFailuresTable {
  post_id: string;
  account_id: string;
  user_id: string;
  reason: string;
  message: string;
  failed_at: Timestamp;
}

export interface NotificationMarksTable {
  kind: string;
  subject: string;
  created_at: GeneratedTimestamp;
}

export interface NotificationTables {
  notifications: NotificationsTable;
  notification_backup_failures: NotificationBackupFailuresTable;
  notification_marks: NotificationMarksTable;
}
