import type { DestinationKind } from "@keepsake/contracts";
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";
import { createSyncRunsRepository, type PostLimit } from "../sync/index.ts";
import type { PostRow } from "../sync/tables.ts";
import { createBackupAlertReads } from "./backup-alerts.repository.ts";
import { createBackupFilesRepository } from "./backup-files.repository.ts";
import { createBackupStats } from "./backup-stats.ts";
import type { BackupRow } from "./tables.ts";

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
          // Where the account's backups go now: this attempt writes there.
          destination: sql<DestinationKind>`(SELECT a.destination FROM instagram_accounts a WHERE a.id = backups.account_id)`,
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
     * in its sync run, completing the run when it was the last one: one statement, so a worker
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
        owner?: string;
        now: Date;
      },
    ) {
      const { now, ...rest } = set;
      const ended = db
        .updateTable("backups")
        .set({
          ...rest,
          lease_token: null,
          lease_expires_at: null,
          updated_at: now,
          completed_at: set.status === "pending" ? null : now,
        })
        .where("id", "=", backupId)
        .where("lease_token", "=", token);
      if (set.status === "pending") return ended.returningAll().executeTakeFirst();
      // One statement with the run's count (the sync area's `endInRun`, which takes the run's
      // row before this one's): a worker that dies cannot leave the one without the other.
      return createSyncRunsRepository(db).endInRun<BackupRow>(
        db.selectFrom("backups").select("sync_job_id").where("id", "=", backupId).$asScalar(),
        (gate) => ended.where(gate).returningAll(),
        now,
      );
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
        destination: DestinationKind;
        owner: string;
      },
      now: Date,
    ) {
      await db
        .insertInto("backups")
        .values({
          post_id: b.post_id,
          destination: b.destination,
          owner: b.owner,
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

    // backup_files: the ledger of what each backup wrote (destinations/ledger.ts).
    ...createBackupFilesRepository(db),
    // What the notifications area reads (alerts and the weekly digest).
    ...createBackupAlertReads(db),
  };
}

export type BackupsRepository = ReturnType<typeof createBackupsRepository>;
