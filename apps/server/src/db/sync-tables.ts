import type { ColumnType, Generated, Selectable } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "./columns.ts";

/** Table types of the backup engine (migration 0200). */

export type GraphMediaType = "IMAGE" | "VIDEO" | "CAROUSEL_ALBUM";
export type GraphProductType = "FEED" | "REELS" | "STORY" | "AD";
export type BackupRowStatus = "pending" | "processing" | "completed" | "failed" | "unavailable";
export type PostSource = "api" | "export";
export type SyncJobRowStatus = "running" | "completed" | "failed" | "cancelled";

export interface PostChild {
  id: string;
  media_type: GraphMediaType;
  media_url: string | null;
  thumbnail_url: string | null;
}

/** jsonb: written as JSON text, read as the parsed value. */
type Json<T> = ColumnType<T, string | undefined, string>;

export interface PostsTable {
  id: Generated<string>;
  user_id: string;
  account_id: string;
  instagram_id: string;
  media_type: GraphMediaType;
  media_product_type: GraphProductType | null;
  caption: string | null;
  posted_at: Timestamp;
  like_count: number | null;
  comments_count: number | null;
  permalink: string | null;
  shortcode: string | null;
  media_url: string | null;
  thumbnail_url: string | null;
  children: Json<PostChild[]>;
  not_backed_up_reason: string | null;
  /** When a backup of the post first started (migration 0600). */
  backup_started_at: Timestamp | null;
  /** Read from Instagram's API, or imported from the user's data export (migration 1140). */
  source: Generated<PostSource>;
  first_seen_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface SyncJobsTable {
  id: Generated<string>;
  user_id: string;
  account_id: string | null;
  job_type: "scheduled_sync" | "manual";
  mode: Generated<"backup" | "refresh">;
  status: SyncJobRowStatus;
  posts_processed: Generated<number>;
  posts_total: Generated<number>;
  /** Of the ended backups, how many failed (migration 1110). */
  posts_failed: Generated<number>;
  error_message: string | null;
  started_at: GeneratedTimestamp;
  completed_at: Timestamp | null;
  heartbeat_at: GeneratedTimestamp;
  seq: Generated<number>;
}

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
  google_drive_file_id: string | null;
  google_drive_url: string | null;
  lease_token: string | null;
  lease_expires_at: Timestamp | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
}

export interface BackupFilesTable {
  backup_id: string;
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

export interface AccountSyncStateTable {
  account_id: string;
  history_complete_at: Timestamp | null;
  last_sync_at: Timestamp | null;
  graph_usage_percent: number | null;
  graph_usage_at: Timestamp | null;
  /** graph.instagram.com refused the stories call (migration 1061): stories need Facebook Login. */
  stories_refused_at: Timestamp | null;
}

/** Counters kept by triggers (migration 0700): posts per account, type and story-ness. */
export interface PostCountsTable {
  user_id: string;
  account_id: string;
  media_type: GraphMediaType;
  is_story: boolean;
  n: number;
}

/** Counters kept by triggers (migration 0700): backups and their bytes per account and status. */
export interface BackupCountsTable {
  user_id: string;
  account_id: string;
  status: BackupRowStatus;
  n: number;
  bytes: number;
}

export interface SyncTables {
  posts: PostsTable;
  sync_jobs: SyncJobsTable;
  backups: BackupsTable;
  backup_files: BackupFilesTable;
  drive_folders: DriveFoldersTable;
  account_sync_state: AccountSyncStateTable;
  post_counts: PostCountsTable;
  backup_counts: BackupCountsTable;
}

export type PostRow = Selectable<PostsTable>;
export type SyncJobRow = Selectable<SyncJobsTable>;
export type BackupRow = Selectable<BackupsTable>;
export type BackupFileRow = Selectable<BackupFilesTable>;
