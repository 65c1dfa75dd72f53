import type { DestinationKind } from "@keepsake/contracts";
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";
import { limitingWords } from "../providers/failure-words.ts";

/** What the notifications area reads of the backups (alerts and the weekly digest). */
export function createBackupAlertReads(db: Kysely<Database>) {
  return {
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

    /**
     * Backups of the user waiting because a provider limits Keepsake's requests (put back to
     * pending, or taken again, with the limit's words): per account and words, how many, since
     * when and the newest (the health state's "throttled"). A completed backup clears its words.
     */
    async throttledByAccount(userId: string) {
      const rows = await db
        .selectFrom("backups")
        .select([
          "account_id",
          "error_message",
          sql<string>`count(*)`.as("n"),
          sql<Date>`min(updated_at)`.as("since"),
          sql<Date>`max(updated_at)`.as("latest_at"),
        ])
        .where("user_id", "=", userId)
        .where("status", "in", ["pending", "processing"])
        .where("error_message", "like", `%${limitingWords("")}`)
        .groupBy(["account_id", "error_message"])
        .execute();
      return rows.map((r) => ({
        accountId: r.account_id,
        message: r.error_message,
        waiting: Number(r.n),
        since: new Date(r.since),
        latestAt: new Date(r.latest_at),
      }));
    },

    /**
     * Each account's stories whose 24 hours ended in (from, to] without a backup (as
     * `expiredStoriesNotBackedUp`), unless a backup of the account completed after the newest
     * of them ended (backups work again): how many, and when the first and newest ended.
     */
    async lostStoriesByAccount(userId: string, from: Date, to: Date) {
      const ends = sql<Date>`p.posted_at + interval '24 hours'`;
      const rows = await db
        .selectFrom("posts as p")
        .innerJoin("backups as b", (j) =>
          j.onRef("b.post_id", "=", "p.id").on("b.user_id", "=", userId),
        )
        .select([
          "p.account_id",
          sql<string>`count(*)`.as("n"),
          sql<Date>`min(${ends})`.as("since"),
          sql<Date>`max(${ends})`.as("latest_at"),
        ])
        .where("p.user_id", "=", userId)
        .where("p.media_product_type", "=", "STORY")
        .where("b.status", "!=", "completed")
        .where(sql<boolean>`${ends} > ${from}`)
        .where(sql<boolean>`${ends} <= ${to}`)
        .groupBy("p.account_id")
        .having(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("backups as c")
                .select("c.id")
                .where("c.user_id", "=", userId)
                .whereRef("c.account_id", "=", "p.account_id")
                .where("c.status", "=", "completed")
                .where(sql<boolean>`c.completed_at > max(${ends})`),
            ),
          ),
        )
        .execute();
      return rows.map((r) => ({
        accountId: r.account_id,
        lost: Number(r.n),
        since: new Date(r.since),
        latestAt: new Date(r.latest_at),
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

    /**
     * When each destination last took a backup of the user (issue 38): a refusal for space
     * before it is over for that destination only.
     */
    async lastCompletedByDestination(
      userId: string,
    ): Promise<Partial<Record<DestinationKind, Date>>> {
      const rows = await db
        .selectFrom("backups")
        .select(["destination", sql<Date>`max(updated_at)`.as("at")])
        .where("user_id", "=", userId)
        .where("status", "=", "completed")
        .groupBy("destination")
        .execute();
      return Object.fromEntries(rows.map((r) => [r.destination, new Date(r.at)]));
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
