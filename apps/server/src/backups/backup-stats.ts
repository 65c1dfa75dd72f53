import type { SyncProgress } from "@keepsake/contracts";
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";

/**
 * "Processing X of Y posts..." from the Pending count's own definition (issue 36): X is what
 * the running backup runs ended, Y adds every pending post, so Y - X is always the Pending
 * card. Null while no backup run holds a backup (none runs, or it is still listing).
 */
export function syncProgress(held: number, ended: number, pending: number): SyncProgress | null {
  return held > 0 ? { processed: ended, total: ended + pending } : null;
}

/** The backups' totals: every count the screens show, from one statement (issue 36). */
export function createBackupStats(db: Kysely<Database>) {
  /**
   * The one definition of every count (issue 36), of the user or of one account: each post in
   * exactly one bucket, and the running backups' progress from the same snapshot.
   */
  async function backupStats(userId: string, accountId?: string) {
    const row = await db
      .selectFrom("posts as p")
      // The owner in the join lets Postgres read only this user's backups (by
      // backups_user_status_idx) instead of scanning the whole table (issue 6, 10,000 posts).
      .leftJoin("backups as b", (j) =>
        j.onRef("b.post_id", "=", "p.id").on("b.user_id", "=", userId),
      )
      // The backup run (if any) that holds the backup now: at most one row (its id).
      .leftJoin("sync_jobs as j", (j) =>
        j
          .onRef("j.id", "=", "b.sync_job_id")
          .on("j.status", "=", "running")
          .on("j.mode", "=", "backup"),
      )
      .where("p.user_id", "=", userId)
      .$if(accountId !== undefined, (q) => q.where("p.account_id", "=", accountId as string))
      .select((eb) => [
        eb.fn.countAll<number>().as("total_posts"),
        // One definition (issue 36): each post is in exactly one of backed up, pending,
        // failed, unavailable and beyond the plan's limit, so the five add up to the total.
        // A post in Drive counts as backed up even when the limit left it out later.
        sql<number>`count(*) FILTER (WHERE b.status = 'completed')`.as("backed_up"),
        // Waiting, within the plan: queued or running, or listed and not yet given a backup.
        sql<number>`count(*) FILTER (WHERE p.not_backed_up_reason IS NULL AND (b.id IS NULL OR b.status IN ('pending', 'processing')))`.as(
          "pending",
        ),
        sql<number>`count(*) FILTER (WHERE p.not_backed_up_reason IS NULL AND b.status = 'failed')`.as(
          "failed",
        ),
        sql<number>`count(*) FILTER (WHERE b.status = 'unavailable')`.as("unavailable"),
        sql<number>`count(*) FILTER (WHERE p.not_backed_up_reason IS NOT NULL AND (b.id IS NULL OR b.status NOT IN ('completed', 'unavailable')))`.as(
          "over_limit",
        ),
        sql<number>`coalesce(sum(b.backup_size_bytes) FILTER (WHERE b.status = 'completed'), 0)`.as(
          "bytes",
        ),
        // Posts Instagram's media_count counts (an imported one is archived or older).
        sql<number>`count(*) FILTER (WHERE p.media_product_type IS DISTINCT FROM 'STORY' AND p.source = 'api')`.as(
          "feed_posts",
        ),
        // The running backups' progress (issue 36): what their runs hold, and how much of
        // it ended; in the same statement as pending, so "Processing X of Y" is read from
        // the same snapshot as the Pending card.
        sql<number>`count(j.id)`.as("run_held"),
        sql<number>`count(j.id) FILTER (WHERE b.status IN ('completed', 'failed', 'unavailable'))`.as(
          "run_ended",
        ),
      ])
      .executeTakeFirstOrThrow();
    return {
      totalPosts: Number(row.total_posts),
      backedUp: Number(row.backed_up),
      pending: Number(row.pending),
      failed: Number(row.failed),
      unavailable: Number(row.unavailable),
      overLimit: Number(row.over_limit),
      bytes: Number(row.bytes),
      feedPosts: Number(row.feed_posts),
      progress: syncProgress(Number(row.run_held), Number(row.run_ended), Number(row.pending)),
    };
  }

  return {
    backupStats,

    /** The running backups' progress (see `syncProgress`), for the status poll and health. */
    async syncProgress(userId: string): Promise<SyncProgress | null> {
      return (await backupStats(userId)).progress;
    },
  };
}
