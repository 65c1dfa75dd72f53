import type { Generated } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "../db/columns.ts";

/**
 * The tables the notifications area owns: one row per event a user is told of (the bell, and the
 * key its alert mail is sent under), backup failures waiting for the day's summary, and the
 * stories already reported as lost (migrations 1020, 1111).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "notifications",
  "notification_backup_failures",
  "notification_marks",
] as const satisfies readonly (keyof NotificationsTables)[];

export interface NotificationsTables {
  notifications: NotificationsTable;
  notification_backup_failures: NotificationBackupFailuresTable;
  notification_marks: NotificationMarksTable;
}

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
