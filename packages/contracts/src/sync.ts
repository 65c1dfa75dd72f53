import { z } from "zod";
import { DESTINATION_KINDS } from "./destination-kinds.ts";
import { BACKUPS_MAX_PAGE_SIZE, BACKUPS_PAGE_SIZE } from "./sync-messages.ts";

export {
  AUTO_SYNC_TIERS,
  BACKUPS_MAX_PAGE_SIZE,
  BACKUPS_PAGE_SIZE,
  POST_LIMITS,
  SEARCH_COUNT_MIN,
  SYNC_INTERVAL_MINUTES,
  syncMessages,
} from "./sync-messages.ts";

/** An empty query value is the same as an absent one (SPEC §3 "Filters"). */
const optionalQuery = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" || v === null ? undefined : v), schema.optional());

const accountId = z.uuid({ error: "account_id must be an account id" });

export const syncJobType = z.enum(["scheduled_sync", "manual"]);
export type SyncJobType = z.infer<typeof syncJobType>;

export const syncJobStatus = z.enum(["running", "completed", "failed", "cancelled"]);
export type SyncJobStatus = z.infer<typeof syncJobStatus>;

export const backupStatus = z.enum(["pending", "processing", "completed", "failed", "unavailable"]);
export type BackupStatus = z.infer<typeof backupStatus>;

/** SPEC §3 "Sync job", plus the account it syncs. */
export const syncJob = z.object({
  id: z.string(),
  account_id: z.string().nullable(),
  job_type: syncJobType,
  /** "refresh" only lists posts from Instagram; "backup" also backs up what is not in Drive. */
  mode: z.enum(["backup", "refresh"]),
  status: syncJobStatus,
  posts_processed: z.number().int(),
  posts_total: z.number().int(),
  /** Of the processed posts, how many backups failed (the run then did not fully succeed). */
  posts_failed: z.number().int(),
  error_message: z.string().nullable(),
  started_at: z.string(),
  completed_at: z.string().nullable(),
});
export type SyncJob = z.infer<typeof syncJob>;

/** Post media type as the API shows it; the `media_type` filter uses the same words. */
export const postMediaType = z.enum(["image", "video", "carousel"]);
export type PostMediaType = z.infer<typeof postMediaType>;

export const postProductType = z.enum(["feed", "reels", "story", "ad"]);
export type PostProductType = z.infer<typeof postProductType>;

/** Whether a post is still on Instagram (issue 30): "gone" once deleted or archived there. */
export const instagramStatus = z.enum(["on_instagram", "gone"]);
export type InstagramStatus = z.infer<typeof instagramStatus>;

/** SPEC §3 Post, plus where it comes from and why it is not backed up. */
export const post = z.object({
  id: z.string(),
  account_id: z.string(),
  instagram_id: z.string(),
  media_type: postMediaType,
  media_product_type: postProductType.nullable(),
  media_url: z.string().nullable(),
  thumbnail_url: z.string().nullable(),
  permalink: z.string().nullable(),
  caption: z.string().nullable(),
  timestamp: z.string(),
  like_count: z.number().int().nullable(),
  comments_count: z.number().int().nullable(),
  children_count: z.number().int(),
  /** Status of the post's backup; null when no backup exists (e.g. beyond the plan's limit). */
  backup_status: backupStatus.nullable(),
  is_backed_up: z.boolean(),
  /** Why the post is not backed up (plan limit, media withheld …); null otherwise. */
  not_backed_up_reason: z.string().nullable(),
  /** The latest views Instagram returned (null when it did not: hidden, or not counted). */
  view_count: z.number().int().nullable().optional(),
  /**
   * When the counters shown (likes, comments, views) were read: the post's latest archive
   * reading (at backup, about 1, 7 and 30 days after posting, and at the weekly walks).
   */
  counted_at: z.string().nullable().optional(),
  /** Where the post comes from: Instagram's API, or the user's data export ("from your export"). */
  source: z.enum(["api", "export"]).optional(),
  /** "gone": deleted or archived on Instagram (its backup stays in Drive). */
  instagram_status: instagramStatus.optional(),
  /** When Keepsake saw that the post is no longer on Instagram. */
  gone_detected_at: z.string().nullable().optional(),
  /** Until when Instagram's "Recently Deleted" can still restore it (30 days from when it was last seen). */
  restore_until: z.string().nullable().optional(),
});
export type Post = z.infer<typeof post>;

/**
 * SPEC §3 "Posts response". `total_exact` is false when a caption search matched more posts
 * than were counted (at least `SEARCH_COUNT_MIN`, and 4 pages past the asked one): `total` is
 * then a lower bound, and the grid says so.
 */
export const postsResponse = z.object({
  posts: z.array(post),
  total: z.number().int(),
  total_exact: z.boolean(),
});
export type PostsResponse = z.infer<typeof postsResponse>;

/** SPEC §3 Backup, with the embedded post and a link that opens the file in Drive. */
export const backup = z.object({
  id: z.string(),
  status: backupStatus,
  error_message: z.string().nullable(),
  backup_size_bytes: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  completed_at: z.string().nullable(),
  attempts: z.number().int(),
  google_drive_file_id: z.string().nullable(),
  /** Opens the backed-up file in Drive (the sandbox's drive page in sandbox mode). */
  google_drive_url: z.string().nullable(),
  /** Where the file is (issue 38): `google_drive_file_id`/`_url` are its id and link there. */
  destination: z.enum(DESTINATION_KINDS).default("google_drive"),
  /** Keepsake's post id (`instagram_post.id`); the retry path takes this id. */
  instagram_post_id: z.string(),
  account_id: z.string(),
  instagram_post: post,
});
export type Backup = z.infer<typeof backup>;

/** One page of backups, most recently changed first, and how many match the filter. */
export const backupsResponse = z.object({ backups: z.array(backup), total: z.number().int() });
export type BackupsResponse = z.infer<typeof backupsResponse>;

/**
 * The progress of the backups running now, from the same counts as `pending_backups` (issue
 * 36): `processed` backups of the running runs ended (backed up, failed or unavailable), and
 * `total` is those plus every pending post, so `total - processed` is always the Pending count.
 * Null while no backup run holds backups (none is running, or it is still listing posts).
 */
export const syncProgress = z.object({
  processed: z.number().int(),
  total: z.number().int(),
});
export type SyncProgress = z.infer<typeof syncProgress>;

/** SPEC §3 "Dashboard stats". */
export const dashboardStats = z.object({
  total_posts: z.number().int(),
  backed_up_posts: z.number().int(),
  /** Posts waiting for a backup: queued or running, or listed within the plan and not yet in Drive. */
  pending_backups: z.number().int(),
  failed_backups: z.number().int(),
  /** Posts listed from Instagram that the plan's post limit leaves out of Drive. */
  posts_over_limit: z.number().int(),
  /**
   * Posts whose media Instagram withholds (their sidecar is in Drive). Each post is counted in
   * exactly one of backed_up_posts, pending_backups, failed_backups, unavailable_posts and
   * posts_over_limit: together they make total_posts (issue 36).
   */
  unavailable_posts: z.number().int(),
  /** The plan's post limit (SPEC §9); null is unlimited. */
  post_limit: z.number().int().nullable(),
  /** Bytes. */
  total_storage_used: z.number().int(),
  /** Minutes until the next automatic sync; null for free users (manual only). */
  next_sync_in: z.number().int().nullable(),
  last_sync: z.string().nullable(),
  /** "Processing X of Y posts...": the running backups' progress (see `syncProgress`). */
  sync_progress: syncProgress.nullable().optional(),
});
export type DashboardStats = z.infer<typeof dashboardStats>;

/** SPEC §3 "Sync status": the caller's running job (else the latest), or null. */
export const syncStatus = z.object({
  is_syncing: z.boolean(),
  sync_job: syncJob.nullable(),
  /** The running backups' progress, as the dashboard's stats give it (see `syncProgress`). */
  progress: syncProgress.nullable().optional(),
});
export type SyncStatus = z.infer<typeof syncStatus>;

/** SPEC §3 "New-posts check". */
export const newPostsCheck = z.object({
  has_new_posts: z.boolean(),
  new_posts_count: z.number().int(),
  /**
   * Posts within the plan's post limit not backed up yet (what Backup Now would back up): the
   * dashboard's pending_backups plus failed_backups_count.
   */
  unbacked_posts_count: z.number().int(),
  /** Of `unbacked_posts_count`, the failed ones (the dashboard's failed_backups). */
  failed_backups_count: z.number().int(),
  upgrade_message: z.string().nullable(),
});
export type NewPostsCheck = z.infer<typeof newPostsCheck>;

/** SPEC §3 "Sync start payload". Without account_id every connected account is synced. */
export const startSyncRequest = z
  .object({ account_id: optionalQuery(accountId) })
  .default({ account_id: undefined });
export type StartSyncRequest = z.infer<typeof startSyncRequest>;

/**
 * Answer of `POST /api/sync/start` and `POST /api/sync/refresh-instagram-posts`.
 * `sync_job` is the first of `sync_jobs`; when a sync was already running for an account,
 * its running job is returned instead of a new one and `already_running` is true.
 */
export const startSyncResponse = z.object({
  message: z.string(),
  already_running: z.boolean(),
  sync_job: syncJob,
  sync_jobs: z.array(syncJob),
});
export type StartSyncResponse = z.infer<typeof startSyncResponse>;

export const retryBackupResponse = z.object({ message: z.string(), backup });
export type RetryBackupResponse = z.infer<typeof retryBackupResponse>;

/** `POST /api/sync/backups/retry-failed`: every failed backup of the caller (or of one account). */
export const retryFailedRequest = z
  .object({ account_id: optionalQuery(accountId) })
  .default({ account_id: undefined });
export type RetryFailedRequest = z.infer<typeof retryFailedRequest>;

/** How many failed backups were put back in the queue (0: 'No failed backups to retry'). */
export const retryFailedResponse = z.object({
  message: z.string(),
  retried: z.number().int(),
});
export type RetryFailedResponse = z.infer<typeof retryFailedResponse>;

export const syncJobsQuery = z.object({
  limit: optionalQuery(z.coerce.number().int().min(1).max(100)).transform((v) => v ?? 10),
});
export type SyncJobsQuery = z.infer<typeof syncJobsQuery>;

export const postsQuery = z.object({
  limit: optionalQuery(z.coerce.number().int().min(1).max(200)).transform((v) => v ?? 36),
  offset: optionalQuery(z.coerce.number().int().min(0)).transform((v) => v ?? 0),
  media_type: optionalQuery(postMediaType),
  search: optionalQuery(z.string().trim().max(200)),
  account_id: optionalQuery(accountId),
  /** "gone": only the posts no longer on Instagram. */
  instagram_status: optionalQuery(z.enum(["gone"])),
});
export type PostsQuery = z.input<typeof postsQuery>;
export type PostsQueryParsed = z.infer<typeof postsQuery>;

/** The dashboard's stats of one account (plans with the accounts panel), else of all. */
export const dashboardStatsQuery = z.object({ account_id: optionalQuery(accountId) });
export type DashboardStatsQuery = z.input<typeof dashboardStatsQuery>;

/** `status_filter` "all" (or absent) lists every status. */
export const backupsQuery = z.object({
  status_filter: optionalQuery(z.enum(["all", ...backupStatus.options])),
  account_id: optionalQuery(accountId),
  /** "gone": only the backups of posts no longer on Instagram. */
  instagram_status: optionalQuery(z.enum(["gone"])),
  limit: optionalQuery(z.coerce.number().int().min(1).max(BACKUPS_MAX_PAGE_SIZE)).transform(
    (v) => v ?? BACKUPS_PAGE_SIZE,
  ),
  offset: optionalQuery(z.coerce.number().int().min(0)).transform((v) => v ?? 0),
});
export type BackupsQuery = z.input<typeof backupsQuery>;
export type BackupsQueryParsed = z.infer<typeof backupsQuery>;
