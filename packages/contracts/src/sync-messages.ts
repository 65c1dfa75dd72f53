// No zod here: the web app's screens take these, and a bundle keeps a module that builds a
// schema (see site-defaults.ts). sync.ts re-exports them for the server.

/** Post limits per tier (SPEC §9); null means unlimited. */
export const POST_LIMITS = { free: 100, premium: 5000, pro: null, agency: null } as const;

/** Tiers whose accounts are synced automatically every 10 minutes (SPEC §1, §9). */
export const AUTO_SYNC_TIERS = ["premium", "pro", "agency"] as const;
export const SYNC_INTERVAL_MINUTES = 10;

/** Messages shared by the server and the screens (SPEC §5, §8, and the backup engine). */
export const syncMessages = {
  instagramNotConnected: "Please connect your Instagram account first",
  googleNotConnected: "Please connect your Google Drive account first",
  driveFull: "Your Google Drive is full. Free up space or buy more storage, then retry.",
  /**
   * SPEC §2 hides backups whose message says this. Keepsake records none: a file found already
   * in Drive is a completed backup of its post (migration 0995 shows the ones recorded before).
   */
  skippedDuplicate: "skipped duplicate",
  mediaWithheld:
    "Instagram does not provide this media for download (for example a reel with licensed music), so it cannot be backed up.",
  /** A backup whose media Instagram withholds ("unavailable"): its sidecar is in Drive. */
  mediaUnavailable:
    "Not available from Instagram: Instagram does not provide this media for download (for example a reel with licensed music). Its caption and details are saved in your Drive.",
  retryAllStarted: (n: number) => `Retrying ${n} failed backup${n === 1 ? "" : "s"}`,
  noFailedBackups: "No failed backups to retry",
  postLimit: (limit: number, tier: string) =>
    `Your ${tier} plan backs up the newest ${limit.toLocaleString("en-US")} posts. Upgrade to back up this post.`,
  syncFailed: "Sync failed - please check your connections and try again",
  /** A sync whose Instagram account was disconnected while it ran (status cancelled). */
  accountDisconnected: "The Instagram account was disconnected.",
  syncStarted: "Sync started",
  refreshStarted: "Refreshing your posts from Instagram (this does not back them up)",
  syncAlreadyRunning: "A sync is already running",
  retryStarted: "Backup retry started",
  backupNotFound: "Backup not found",
  postNotFound: "Post not found",
  accountNotFound: "Instagram account not found",
} as const;

/** The Backups list's page size, and the largest page a client may ask for. */
export const BACKUPS_PAGE_SIZE = 50;
export const BACKUPS_MAX_PAGE_SIZE = 200;
/**
 * A caption search counts its matches exactly up to this many (see `postsResponse`): five
 * pages of the grid, the page buttons a search shows; past that the grid says "180+ posts".
 * Counting further costs a read of every matching caption (issue 14: a common word in a
 * million posts took more time than the page itself).
 */
export const SEARCH_COUNT_MIN = 180;
