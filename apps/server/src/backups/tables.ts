import type { DestinationKind } from "@keepsake/contracts";
import type { Generated, Selectable } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "../db/columns.ts";

/**
 * The tables the backups area owns: Each post's backup, its files in Drive, the Drive folders,
 * the backups' counters (migrations 0200, 0700).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "backups",
  "backup_files",
  "drive_folders",
  "backup_counts",
] as const satisfies readonly (keyof BackupsTables)[];
/**
 * Read, never written: the accounts (connections/) whose destination a claim records,
 * the posts (sync/) a backup copies, joined for the backups' totals, the
 * failed backups a retry may reset (not those beyond the plan's limit) and the stories lost;
 * the running sync runs (sync/) whose backups make the totals' progress.
 */
export const readsTables = ["instagram_accounts", "posts", "sync_jobs"] as const;

export interface BackupsTables {
  backups: BackupsTable;
  backup_files: BackupFilesTable;
  drive_folders: DriveFoldersTable;
  backup_counts: BackupCountsTable;
}

export type BackupRowStatus = "pending" | "processing" | "completed" | "failed" | "unavailable";

export interface BackupsTable {
  id: Generated<string>;
  post_id: string;
  user_id: string;
  account_id: string;
  sync_job_id: string | null;
  status: Generated<BackupRowStatus>;
  attempts: Generated<number>;
  error_message: string | null;
  retry_on_sync: Generated<boolean>;
  backup_size_bytes: number | null;
  md5: string | null;
  /** The file's id and link in `destination` (the column names predate other destinations). */
  google_drive_file_id: string | null;
  google_drive_url: string | null;
  /** Where this backup goes or went (migration 1200): the account's destination when it started. */
  destination: Generated<DestinationKind>;
  /**
   * The account of `destination` the backup was completed in (migration 1220: the Google sub,
   * or the connection's external_id; '' unknown): connected as another account, it is copied
   * again.
   */
  owner: Generated<string>;
  lease_token: string | null;
  lease_expires_at: Timestamp | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
}

export interface BackupFilesTable {
  backup_id: string;
  /** The destination the item was written to (migration 1200): each keeps its own ledger. */
  destination: Generated<DestinationKind>;
  /** The account of `destination` the item was written in (migration 1220; '' unknown). */
  owner: Generated<string>;
  item_key: string;
  name: string;
  drive_file_id: string | null;
  size_bytes: number | null;
  md5: string | null;
  web_url: string | null;
  upload_session_uri: string | null;
  upload_total: number | null;
  updated_at: GeneratedTimestamp;
}

export interface DriveFoldersTable {
  user_id: string;
  google_sub: string;
  path: string;
  folder_id: string;
  created_at: GeneratedTimestamp;
  /** Found in Drive rather than created by Keepsake (migration 0600). */
  adopted: Generated<boolean>;
}

/** Counters kept by triggers (migration 0700): backups and their bytes per account and status. */
export interface BackupCountsTable {
  user_id: string;
  account_id: string;
  status: BackupRowStatus;
  n: number;
  bytes: number;
}

export type BackupRow = Selectable<BackupsTable>;
export type BackupFileRow = Selectable<BackupFilesTable>;
