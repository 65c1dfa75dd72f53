import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";
import { inTransaction } from "../db/transaction.ts";
import { createSyncRunsRepository, type PostLimit } from "../sync/index.ts";
import type { PostRow } from "../sync/tables.ts";
import { createBackupStats } from "./backup-stats.ts";
import type { BackupFileRow } from "./tables.ts";

/** The backups and backup_files tables: claims and leases, outcomes, the files in Drive, totals. */
export function createBackupsRepository(db: Kysely<Database>) {
  return {
    /**
     * Backups to (re)start for the account, after the plan's post limit is applied to the
     * user's posts (see `applyPostLimit`): posts within the limit without a backup, still
     * pending, failed in a way the next sync may retry, or abandoned by a dead worker. Creates
     * the missing rows, attaches them all to the sync run, and answers them newest post first.
     */
    async claimBackupsForSync(
      accountId: string,
      userId: string,
      syncJobId: string,
      now: Date,
      postLimit: PostLimit,
    ) {
      // One statement, a function (migration 0990) whose plans the session keeps; it applies
      // the post limit before it claims.
      const { limit, reason } = postLimit;
      const { rows } = await sql<{ post_id: string; id: string; posted_at: Date }>`
        SELECT post_id, id, posted_at FROM claim_backups_for_sync(
          ${accountId}, ${userId}, ${syncJobId}, ${now}, ${limit}::integer, ${reason}::text)
         ORDER BY posted_at DESC`.execute(db);
      return rows;
    },

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

    /** Ends this worker's claim without an outcome: the next claim may take the backup at once. */
    async releaseLease(backupId: string, token: string, now: Date) {
      await db
        .updateTable("backups")
        .set({ lease_expires_at: new Date(now.getTime() - 1) })
        .where("id", "=", backupId)
        .where("lease_token", "=", token)
        .where("status", "=", "processing")
        .execute();
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

    /**
     * Ends the claim with its outcome, and counts an ended backup (not one put back to pending)
     * in its sync run, completing the run when it was the last one: one transaction, so a worker
     * that dies cannot leave the one without the other. Undefined when the lease was lost
     * meanwhile.
     */
    async finishBackup(
      backupId: string,
      token: string,
      set: {
        status: "completed" | "failed" | "unavailable" | "pending";
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
      const end = (q: Kysely<Database>) =>
        q
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
      if (set.status === "pending") return end(db);
      return inTransaction(db, async (trx) => {
        // The run's row is taken first, before the backup's: the backup's counters (migration
        // 0700) wait for the account's lock while its row is held, so holding the row while
        // waiting for the run (which every backup of the run wants) would hold it far longer
        // and deadlock with a deletion that holds the account's lock and waits for the row.
        const runs = createSyncRunsRepository(trx);
        const run = await trx
          .selectFrom("backups")
          .select("sync_job_id")
          .where("id", "=", backupId)
          .executeTakeFirst();
        if (run?.sync_job_id) await runs.lockRunning(run.sync_job_id);
        const done = await end(trx);
        if (done?.sync_job_id)
          await runs.countBackupEnded(done.sync_job_id, now, done.status === "failed");
        return done;
      });
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

    /**
     * Puts every failed backup of the user (or of one account) back to pending, except those of
     * posts beyond the plan's limit; answers their post ids.
     */
    async resetFailedBackups(userId: string, accountId: string | undefined, now: Date) {
      const rows = await db
        .updateTable("backups")
        .set({ status: "pending", error_message: null, sync_job_id: null, updated_at: now })
        .where("user_id", "=", userId)
        .where("status", "=", "failed")
        .$if(accountId !== undefined, (q) => q.where("account_id", "=", accountId as string))
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom("posts")
              .select("posts.id")
              .whereRef("posts.id", "=", "backups.post_id")
              .where("posts.not_backed_up_reason", "is", null),
          ),
        )
        .returning("post_id")
        .execute();
      return rows.map((r) => r.post_id);
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

    /**
     * The completed backup of a post an import put in Drive (its files are the import's):
     * once per post, never queued.
     */
    async recordImportedBackup(
      b: {
        post_id: string;
        user_id: string;
        account_id: string;
        size: number;
        md5: string | null;
        drive_file_id: string | null;
        drive_url: string | null;
      },
      now: Date,
    ) {
      await db
        .insertInto("backups")
        .values({
          post_id: b.post_id,
          user_id: b.user_id,
          account_id: b.account_id,
          status: "completed",
          backup_size_bytes: b.size,
          md5: b.md5,
          google_drive_file_id: b.drive_file_id,
          google_drive_url: b.drive_url,
          created_at: now,
          updated_at: now,
          started_at: now,
          completed_at: now,
        })
        .onConflict((oc) => oc.column("post_id").doNothing())
        .execute();
    },

    /** Completed backups of each account (the accounts panel), from the trigger-kept counters. */
    async completedByAccount(accountIds: string[]): Promise<Map<string, number>> {
      if (accountIds.length === 0) return new Map();
      const rows = await db
        .selectFrom("backup_counts")
        .select(["account_id", sql<string>`sum(n)`.as("n")])
        .where("account_id", "in", accountIds)
        .where("status", "=", "completed")
        .groupBy("account_id")
        .execute();
      return new Map(rows.map((r) => [r.account_id, Number(r.n)]));
    },

    ...createBackupStats(db),

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

    // --- what the notifications area reads (alerts and the weekly digest) -------------------
    /** Stories whose 24 hours ended in (from, to] without a completed backup: lost for good. */
    expiredStoriesNotBackedUp(from: Date, to: Date) {
      return db
        .selectFrom("posts as p")
        .innerJoin("backups as b", "b.post_id", "p.id")
        .select(["p.id as post_id", "p.account_id", "p.user_id", "p.posted_at", "b.error_message"])
        .where("p.media_product_type", "=", "STORY")
        .where("b.status", "!=", "completed")
        .where(sql<boolean>`p.posted_at + interval '24 hours' > ${from}`)
        .where(sql<boolean>`p.posted_at + interval '24 hours' <= ${to}`)
        .orderBy("p.posted_at")
        .limit(1000)
        .execute();
    },

    /**
     * Each account's failed backups: how many, since when, and the newest failure's words (the
     * health state's "failing since"; failed rows are few and read by backups_user_status_idx).
     */
    async failuresByAccount(userId: string) {
      const rows = await db
        .selectFrom("backups")
        .select([
          "account_id",
          sql<string>`count(*)`.as("n"),
          sql<Date>`min(updated_at)`.as("since"),
          sql<Date>`max(updated_at)`.as("latest_at"),
          sql<string | null>`(array_agg(error_message ORDER BY updated_at DESC))[1]`.as("latest"),
        ])
        .where("user_id", "=", userId)
        .where("status", "=", "failed")
        .groupBy("account_id")
        .execute();
      return rows.map((r) => ({
        accountId: r.account_id,
        failed: Number(r.n),
        since: new Date(r.since),
        latestAt: new Date(r.latest_at),
        latest: r.latest,
      }));
    },

    /** When a backup of the user last completed (the newest by the status index), or null. */
    async lastCompletedAt(userId: string): Promise<Date | null> {
      const row = await db
        .selectFrom("backups")
        .select("updated_at")
        .where("user_id", "=", userId)
        .where("status", "=", "completed")
        .orderBy("updated_at", "desc")
        .limit(1)
        .executeTakeFirst();
      return row ? new Date(row.updated_at) : null;
    },

    /** How many of an account's backups are failed (from the counters). */
    async failedBackupsOf(accountId: string): Promise<number> {
      const row = await db
        .selectFrom("backup_counts")
        .select(sql<string>`coalesce(sum(n), 0)`.as("n"))
        .where("account_id", "=", accountId)
        .where("status", "=", "failed")
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** A user's backups completed since `since`, failed ones waiting, and the bytes in Drive. */
    async userSummary(userId: string, since: Date) {
      const recent = await db
        .selectFrom("backups")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("user_id", "=", userId)
        .where("status", "=", "completed")
        .where("completed_at", ">=", since)
        .executeTakeFirst();
      const totals = await db
        .selectFrom("backup_counts")
        .select([
          sql<string>`coalesce(sum(n) FILTER (WHERE status = 'completed'), 0)`.as("completed"),
          sql<string>`coalesce(sum(n) FILTER (WHERE status = 'failed'), 0)`.as("failed"),
          sql<string>`coalesce(sum(bytes) FILTER (WHERE status = 'completed'), 0)`.as("bytes"),
        ])
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return {
        backed_up_since: Number(recent?.n ?? 0),
        completed_total: Number(totals?.completed ?? 0),
        failed_total: Number(totals?.failed ?? 0),
        bytes_total: Number(totals?.bytes ?? 0),
      };
    },
  };
}

export type BackupsRepository = ReturnType<typeof createBackupsRepository>;
