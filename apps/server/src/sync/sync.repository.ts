import { type Kysely, sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { Database } from "../db/schema.ts";
import type {
  BackupFileRow,
  GraphMediaType,
  GraphProductType,
  PostChild,
  PostRow,
  SyncJobRow,
} from "../db/sync-tables.ts";
import { cursorListingQueries } from "./cursor-listing.repository.ts";
import { listingQueries } from "./listing.repository.ts";

export type { BackupWithPost, PostFilter, PostWithBackup } from "./listing.repository.ts";

export interface PostUpsert {
  user_id: string;
  account_id: string;
  instagram_id: string;
  media_type: GraphMediaType;
  media_product_type: GraphProductType | null;
  caption: string | null;
  posted_at: Date;
  like_count: number | null;
  comments_count: number | null;
  permalink: string | null;
  shortcode: string | null;
  media_url: string | null;
  thumbnail_url: string | null;
  children: PostChild[];
}

function repository(db: Kysely<Database>) {
  return {
    // The posts grid and the Backups list (listing.repository.ts).
    ...listingQueries(db),
    // The public API's keyset pages (cursor-listing.repository.ts).
    ...cursorListingQueries(db),

    // --- accounts (read-only views of the Connections tables) ------------------------------
    accountWithOwner(accountId: string) {
      return db
        .selectFrom("instagram_accounts as a")
        .innerJoin("users as u", "u.id", "a.user_id")
        .leftJoin("account_sync_state as st", "st.account_id", "a.id")
        .select([
          "a.id",
          "a.user_id",
          "a.username",
          "a.instagram_user_id",
          "a.connected_via",
          "a.status",
          "a.status_reason",
          "a.connected_at",
          "a.paused_by_plan",
          "u.subscription_tier",
          "u.is_active",
          "st.history_complete_at",
        ])
        .where("a.id", "=", accountId)
        .executeTakeFirst();
    },

    /** Active accounts of users whose plan syncs automatically. */
    accountsForAutoSync(tiers: readonly string[]) {
      return db
        .selectFrom("instagram_accounts as a")
        .innerJoin("users as u", "u.id", "a.user_id")
        .leftJoin("account_sync_state as st", "st.account_id", "a.id")
        .select(["a.id", "a.user_id", "st.graph_usage_percent", "st.graph_usage_at"])
        .where("a.status", "=", "active")
        .where("a.paused_by_plan", "=", false)
        .where("u.is_active", "=", true)
        .where("u.subscription_tier", "in", tiers as ("premium" | "pro" | "agency")[])
        .orderBy("a.id")
        .execute();
    },

    userAccounts(userId: string) {
      return db
        .selectFrom("instagram_accounts")
        .select(["id", "username", "status", "status_reason", "media_count", "paused_by_plan"])
        .where("user_id", "=", userId)
        .orderBy("connected_at")
        .execute();
    },

    userTier(userId: string) {
      return db
        .selectFrom("users")
        .select("subscription_tier")
        .where("id", "=", userId)
        .executeTakeFirst();
    },

    googleConnection(userId: string) {
      return db
        .selectFrom("google_connections")
        .select(["google_sub", "status", "status_reason"])
        .where("user_id", "=", userId)
        .executeTakeFirst();
    },

    // --- account_sync_state ----------------------------------------------------------------
    async markSynced(
      accountId: string,
      now: Date,
      historyComplete: boolean,
      graphUsagePercent: number | null,
    ) {
      const usage =
        graphUsagePercent === null
          ? {}
          : {
              graph_usage_percent: Math.min(100, Math.round(graphUsagePercent)),
              graph_usage_at: now,
            };
      await db
        .insertInto("account_sync_state")
        .values({
          account_id: accountId,
          last_sync_at: now,
          history_complete_at: historyComplete ? now : null,
          ...usage,
        })
        .onConflict((oc) =>
          oc.column("account_id").doUpdateSet({
            last_sync_at: now,
            ...usage,
            ...(historyComplete
              ? {
                  history_complete_at: sql<Date>`coalesce(account_sync_state.history_complete_at, ${now})`,
                }
              : {}),
          }),
        )
        .execute();
    },

    // --- posts -----------------------------------------------------------------------------
    async knownInstagramIds(accountId: string, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom("posts")
        .select("instagram_id")
        .where("account_id", "=", accountId)
        .where("instagram_id", "in", ids)
        .execute();
      return new Set(rows.map((r) => r.instagram_id));
    },

    async upsertPosts(posts: PostUpsert[], now: Date): Promise<void> {
      if (posts.length === 0) return;
      await db
        .insertInto("posts")
        .values(
          posts.map((p) => ({
            ...p,
            children: JSON.stringify(p.children),
            first_seen_at: now,
            updated_at: now,
          })),
        )
        .onConflict((oc) =>
          oc.columns(["account_id", "instagram_id"]).doUpdateSet((eb) => ({
            media_type: eb.ref("excluded.media_type"),
            media_product_type: eb.ref("excluded.media_product_type"),
            caption: eb.ref("excluded.caption"),
            posted_at: eb.ref("excluded.posted_at"),
            like_count: eb.ref("excluded.like_count"),
            comments_count: eb.ref("excluded.comments_count"),
            permalink: eb.ref("excluded.permalink"),
            shortcode: eb.ref("excluded.shortcode"),
            media_url: eb.ref("excluded.media_url"),
            thumbnail_url: eb.ref("excluded.thumbnail_url"),
            children: eb.ref("excluded.children"),
            updated_at: eb.ref("excluded.updated_at"),
          })),
        )
        .execute();
    },

    updatePostMedia(
      postId: string,
      m: { media_url: string | null; thumbnail_url: string | null; children: PostChild[] },
      now: Date,
    ) {
      return db
        .updateTable("posts")
        .set({ ...m, children: JSON.stringify(m.children), updated_at: now })
        .where("id", "=", postId)
        .execute();
    },

    /**
     * The plan's post limit: the user's newest `limit` posts may be backed up, older ones carry
     * `reason`. `limit` null clears every reason.
     */
    async applyPostLimit(userId: string, limit: number | null, reason: string | null) {
      if (limit === null) {
        await db
          .updateTable("posts")
          .set({ not_backed_up_reason: null })
          .where("user_id", "=", userId)
          .where("not_backed_up_reason", "is not", null)
          .execute();
        return;
      }
      await sql`
        UPDATE posts SET not_backed_up_reason = CASE WHEN r.rank > ${limit} THEN ${reason}::text ELSE NULL END
        FROM (
          SELECT id, row_number() OVER (ORDER BY posted_at DESC, id) AS rank
          FROM posts WHERE user_id = ${userId}
        ) r
        WHERE posts.id = r.id
          AND posts.not_backed_up_reason IS DISTINCT FROM
              (CASE WHEN r.rank > ${limit} THEN ${reason}::text ELSE NULL END)`.execute(db);
    },

    /**
     * Backups to (re)start for the account: posts within the limit without a backup, still
     * pending, or failed in a way the next sync may retry. Creates the missing rows, attaches
     * them to the sync run, and answers their post ids.
     */
    async claimBackupsForSync(accountId: string, userId: string, syncJobId: string, now: Date) {
      await sql`
        INSERT INTO backups (post_id, user_id, account_id, sync_job_id, status, created_at, updated_at)
        SELECT p.id, p.user_id, p.account_id, ${syncJobId}, 'pending', ${now}, ${now}
        FROM posts p
        WHERE p.account_id = ${accountId} AND p.user_id = ${userId}
          AND p.not_backed_up_reason IS NULL
          AND NOT EXISTS (SELECT 1 FROM backups b WHERE b.post_id = p.id)
        ON CONFLICT (post_id) DO NOTHING`.execute(db);
      const rows = await db
        .updateTable("backups as b")
        .from("posts as p")
        .set({
          sync_job_id: syncJobId,
          status: sql`CASE WHEN b.status = 'failed' THEN 'pending' ELSE b.status END`,
          error_message: sql`CASE WHEN b.status = 'failed' THEN NULL ELSE b.error_message END`,
          updated_at: now,
        })
        .whereRef("p.id", "=", "b.post_id")
        .where("b.account_id", "=", accountId)
        .where("p.not_backed_up_reason", "is", null)
        .where((eb) =>
          eb.or([
            eb("b.status", "=", "pending"),
            eb.and([eb("b.status", "=", "failed"), eb("b.retry_on_sync", "=", true)]),
            // A processing backup whose worker died: the new job takes it over.
            eb.and([eb("b.status", "=", "processing"), eb("b.lease_expires_at", "<", now)]),
          ]),
        )
        .returning(["b.post_id", "b.id", "p.posted_at"])
        .execute();
      return rows.sort((a, b) => new Date(b.posted_at).getTime() - new Date(a.posted_at).getTime());
    },

    findPost(postId: string) {
      return db.selectFrom("posts").selectAll().where("id", "=", postId).executeTakeFirst();
    },

    /** Notes that a backup of the post started (once; later calls keep the first time). */
    async markPostBackupStarted(postId: string, now: Date) {
      await db
        .updateTable("posts")
        .set({ backup_started_at: now })
        .where("id", "=", postId)
        .where("backup_started_at", "is", null)
        .execute();
    },

    findUserPost(userId: string, postId: string) {
      return db
        .selectFrom("posts")
        .selectAll()
        .where("user_id", "=", userId)
        .where("id", "=", postId)
        .executeTakeFirst();
    },

    findUserPostByInstagramId(userId: string, instagramId: string) {
      return db
        .selectFrom("posts")
        .selectAll()
        .where("user_id", "=", userId)
        .where("instagram_id", "=", instagramId)
        .orderBy("updated_at", "desc")
        .executeTakeFirst();
    },

    // --- sync_jobs -------------------------------------------------------------------------
    runningSyncJob(accountId: string) {
      return db
        .selectFrom("sync_jobs")
        .selectAll()
        .where("account_id", "=", accountId)
        .where("status", "=", "running")
        .executeTakeFirst();
    },

    findSyncJob(id: string) {
      return db.selectFrom("sync_jobs").selectAll().where("id", "=", id).executeTakeFirst();
    },

    /** A new running job; undefined when the account already has one running. */
    async insertSyncJob(j: {
      id?: string;
      user_id: string;
      account_id: string;
      job_type: "scheduled_sync" | "manual";
      mode: "backup" | "refresh";
      now: Date;
    }): Promise<SyncJobRow | undefined> {
      return db
        .insertInto("sync_jobs")
        .values({
          ...(j.id ? { id: j.id } : {}),
          user_id: j.user_id,
          account_id: j.account_id,
          job_type: j.job_type,
          mode: j.mode,
          status: "running",
          started_at: j.now,
          heartbeat_at: j.now,
        })
        .onConflict((oc) => oc.column("account_id").where("status", "=", "running").doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    updateSyncJob(
      id: string,
      set: Partial<{
        status: SyncJobRow["status"];
        posts_processed: number;
        posts_total: number;
        error_message: string | null;
        completed_at: Date | null;
        heartbeat_at: Date;
      }>,
    ) {
      return db
        .updateTable("sync_jobs")
        .set(set)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
    },

    /** Finishes a running job (with its final counts, when given); no-op when it already ended. */
    finishSyncJob(
      id: string,
      status: "completed" | "failed" | "cancelled",
      now: Date,
      error: string | null,
      counts: { posts_total: number; posts_processed: number } | null = null,
    ) {
      return db
        .updateTable("sync_jobs")
        .set({
          status,
          completed_at: now,
          heartbeat_at: now,
          error_message: error,
          ...(counts ?? {}),
        })
        .where("id", "=", id)
        .where("status", "=", "running")
        .returningAll()
        .executeTakeFirst();
    },

    /** Counts one finished backup; completes the run when it was the last one. */
    async countBackupDone(syncJobId: string, now: Date) {
      const row = await db
        .updateTable("sync_jobs")
        .set((eb) => ({ posts_processed: eb("posts_processed", "+", 1), heartbeat_at: now }))
        .where("id", "=", syncJobId)
        .where("status", "=", "running")
        .returningAll()
        .executeTakeFirst();
      if (row && row.posts_processed >= row.posts_total) {
        await this.finishSyncJob(syncJobId, "completed", now, null);
      }
    },

    /** Running jobs untouched since `before` (their worker died): marked failed. */
    async failStaleSyncJobs(before: Date, now: Date, message: string) {
      await db
        .updateTable("sync_jobs")
        .set({ status: "failed", completed_at: now, error_message: message })
        .where("status", "=", "running")
        .where("heartbeat_at", "<", before)
        .execute();
    },

    listSyncJobs(userId: string, limit: number) {
      return db
        .selectFrom("sync_jobs")
        .selectAll()
        .where("user_id", "=", userId)
        .orderBy("started_at", "desc")
        .orderBy("seq", "desc")
        .limit(limit)
        .execute();
    },

    latestRunningSyncJob(userId: string) {
      return db
        .selectFrom("sync_jobs")
        .selectAll()
        .where("user_id", "=", userId)
        .where("status", "=", "running")
        .orderBy("started_at", "desc")
        .orderBy("seq", "desc")
        .executeTakeFirst();
    },

    lastCompletedSync(userId: string) {
      return db
        .selectFrom("sync_jobs")
        .select((eb) => eb.fn.max("completed_at").as("at"))
        .where("user_id", "=", userId)
        .where("status", "=", "completed")
        .executeTakeFirst();
    },

    // --- backups ---------------------------------------------------------------------------
    /**
     * Takes the backup for one worker: pending, or processing with an expired lease.
     * Undefined when someone else holds it or there is nothing to do.
     */
    claimBackup(postId: string, token: string, now: Date, leaseUntil: Date) {
      return db
        .updateTable("backups")
        .set((eb) => ({
          status: "processing",
          lease_token: token,
          lease_expires_at: leaseUntil,
          attempts: eb("attempts", "+", 1),
          started_at: now,
          updated_at: now,
        }))
        .where("post_id", "=", postId)
        .where((eb) =>
          eb.or([
            eb("status", "=", "pending"),
            eb.and([eb("status", "=", "processing"), eb("lease_expires_at", "<", now)]),
          ]),
        )
        .returningAll()
        .executeTakeFirst();
    },

    async backupStatus(postId: string) {
      const row = await db
        .selectFrom("backups")
        .select("status")
        .where("post_id", "=", postId)
        .executeTakeFirst();
      return row?.status ?? null;
    },

    async renewLease(backupId: string, token: string, leaseUntil: Date): Promise<boolean> {
      const r = await db
        .updateTable("backups")
        .set({ lease_expires_at: leaseUntil })
        .where("id", "=", backupId)
        .where("lease_token", "=", token)
        .where("status", "=", "processing")
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /** Ends the claim with a final state; undefined when the lease was lost meanwhile. */
    finishBackup(
      backupId: string,
      token: string,
      set: {
        status: "completed" | "failed" | "pending";
        error_message: string | null;
        retry_on_sync?: boolean;
        backup_size_bytes?: number | null;
        md5?: string | null;
        google_drive_file_id?: string | null;
        google_drive_url?: string | null;
        now: Date;
      },
    ) {
      const { now, ...rest } = set;
      return db
        .updateTable("backups")
        .set({
          ...rest,
          lease_token: null,
          lease_expires_at: null,
          updated_at: now,
          completed_at: set.status === "pending" ? null : now,
        })
        .where("id", "=", backupId)
        .where("lease_token", "=", token)
        .returningAll()
        .executeTakeFirst();
    },

    findBackupByPost(userId: string, postId: string) {
      return db
        .selectFrom("backups")
        .selectAll()
        .where("user_id", "=", userId)
        .where("post_id", "=", postId)
        .executeTakeFirst();
    },

    /** Puts a backup back to pending for a retry (not while a worker holds it). */
    resetBackup(userId: string, postId: string, now: Date) {
      return db
        .updateTable("backups")
        .set({ status: "pending", error_message: null, sync_job_id: null, updated_at: now })
        .where("user_id", "=", userId)
        .where("post_id", "=", postId)
        .where((eb) =>
          eb.or([
            eb("status", "in", ["failed", "pending"]),
            eb.and([eb("status", "=", "processing"), eb("lease_expires_at", "<", now)]),
          ]),
        )
        .returningAll()
        .executeTakeFirst();
    },

    /** Creates a pending backup for a post that has none (a retry of a never-tried post). */
    async ensureBackup(post: PostRow, now: Date) {
      await db
        .insertInto("backups")
        .values({
          post_id: post.id,
          user_id: post.user_id,
          account_id: post.account_id,
          status: "pending",
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.column("post_id").doNothing())
        .execute();
    },

    async backupStats(userId: string) {
      const row = await db
        .selectFrom("posts as p")
        // The owner in the join lets Postgres read only this user's backups (by
        // backups_user_status_idx) instead of scanning the whole table (issue 6, 10,000 posts).
        .leftJoin("backups as b", (j) =>
          j.onRef("b.post_id", "=", "p.id").on("b.user_id", "=", userId),
        )
        .where("p.user_id", "=", userId)
        .select((eb) => [
          eb.fn.countAll<number>().as("total_posts"),
          sql<number>`count(*) FILTER (WHERE b.status = 'completed')`.as("backed_up"),
          // Waiting: queued or running, or listed within the plan and not yet given a backup.
          sql<number>`count(*) FILTER (WHERE b.status IN ('pending', 'processing') OR (b.id IS NULL AND p.not_backed_up_reason IS NULL))`.as(
            "pending",
          ),
          sql<number>`count(*) FILTER (WHERE b.status IS DISTINCT FROM 'completed')`.as("unbacked"),
          sql<number>`count(*) FILTER (WHERE b.status = 'failed')`.as("failed"),
          sql<number>`count(*) FILTER (WHERE p.not_backed_up_reason IS NOT NULL AND b.status IS DISTINCT FROM 'completed')`.as(
            "over_limit",
          ),
          sql<number>`coalesce(sum(b.backup_size_bytes) FILTER (WHERE b.status = 'completed'), 0)`.as(
            "bytes",
          ),
          sql<number>`count(*) FILTER (WHERE p.media_product_type IS DISTINCT FROM 'STORY')`.as(
            "feed_posts",
          ),
        ])
        .executeTakeFirstOrThrow();
      return {
        totalPosts: Number(row.total_posts),
        backedUp: Number(row.backed_up),
        pending: Number(row.pending),
        unbacked: Number(row.unbacked),
        failed: Number(row.failed),
        overLimit: Number(row.over_limit),
        bytes: Number(row.bytes),
        feedPosts: Number(row.feed_posts),
      };
    },

    // --- backup_files ----------------------------------------------------------------------
    backupFiles(backupId: string): Promise<BackupFileRow[]> {
      return db.selectFrom("backup_files").selectAll().where("backup_id", "=", backupId).execute();
    },

    async saveBackupFile(
      f: Partial<Omit<BackupFileRow, "backup_id" | "item_key" | "updated_at">> & {
        backup_id: string;
        item_key: string;
        name: string;
      },
      now: Date,
    ) {
      const { backup_id, item_key, ...rest } = f;
      await db
        .insertInto("backup_files")
        .values({ ...f, updated_at: now })
        .onConflict((oc) =>
          oc.columns(["backup_id", "item_key"]).doUpdateSet({ ...rest, updated_at: now }),
        )
        .execute();
    },

    // --- drive_folders ---------------------------------------------------------------------
    findFolder(userId: string, googleSub: string, path: string) {
      return db
        .selectFrom("drive_folders")
        .select(["folder_id", "created_at", "adopted"])
        .where("user_id", "=", userId)
        .where("google_sub", "=", googleSub)
        .where("path", "=", path)
        .executeTakeFirst();
    },

    /**
     * Records a folder (`adopted`: found in Drive, not created); answers the record that won
     * when two workers raced.
     */
    async saveFolder(
      userId: string,
      googleSub: string,
      path: string,
      folderId: string,
      adopted: boolean,
      now: Date,
    ) {
      await db
        .insertInto("drive_folders")
        .values({
          user_id: userId,
          google_sub: googleSub,
          path,
          folder_id: folderId,
          adopted,
          created_at: now,
        })
        .onConflict((oc) => oc.columns(["user_id", "google_sub", "path"]).doNothing())
        .execute();
      return (await this.findFolder(userId, googleSub, path))!;
    },

    async forgetFolder(userId: string, googleSub: string, path: string) {
      await db
        .deleteFrom("drive_folders")
        .where("user_id", "=", userId)
        .where("google_sub", "=", googleSub)
        .where("path", "=", path)
        .execute();
    },
  };
}

export type SyncRepository = ReturnType<typeof repository>;

export function createSyncRepository(db: Db): SyncRepository {
  return repository(db);
}
