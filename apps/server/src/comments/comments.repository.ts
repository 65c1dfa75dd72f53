import type { DestinationKind } from "@keepsake/contracts";
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { inTransaction } from "../db/transaction.ts";
import type { GraphComment } from "../providers/instagram/comments.client.ts";

/** The comments area's tables: comment_settings, post_comments, comment_reads (migration 1060). */
export function createCommentsRepository(db: Db) {
  return {
    async settings(accountIds: string[]) {
      if (accountIds.length === 0) return [];
      return db
        .selectFrom("comment_settings")
        .selectAll()
        .where("account_id", "in", accountIds)
        .execute();
    },

    /** Every account that keeps comments (a few per user at most). */
    async enabledAccounts(): Promise<Set<string>> {
      const rows = await db
        .selectFrom("comment_settings")
        .select("account_id")
        .where("enabled", "=", true)
        .execute();
      return new Set(rows.map((r) => r.account_id));
    },

    async isEnabled(accountId: string): Promise<boolean> {
      const row = await db
        .selectFrom("comment_settings")
        .select("enabled")
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      return row?.enabled === true;
    },

    async setEnabled(accountId: string, enabled: boolean, now: Date) {
      await db
        .insertInto("comment_settings")
        .values({ account_id: accountId, enabled, updated_at: now })
        .onConflict((oc) =>
          oc.column("account_id").doUpdateSet({
            enabled,
            updated_at: now,
            ...(enabled ? {} : { permission_missing_at: null }),
          }),
        )
        .execute();
    },

    async setPermissionMissing(accountId: string, at: Date | null) {
      await db
        .updateTable("comment_settings")
        .set({ permission_missing_at: at })
        .where("account_id", "=", accountId)
        .execute();
    },

    /** Posts whose comments are to be read now (at their backup); known ones are left as they are. */
    async scheduleFirstReads(
      accountId: string,
      posts: { post_id: string; posted_at: Date }[],
      now: Date,
    ) {
      for (let i = 0; i < posts.length; i += 1000) {
        await db
          .insertInto("comment_reads")
          .values(
            posts.slice(i, i + 1000).map((p) => ({
              post_id: p.post_id,
              account_id: accountId,
              posted_at: p.posted_at,
              next_read_at: now,
            })),
          )
          .onConflict((oc) => oc.column("post_id").doNothing())
          .execute();
      }
    },

    /**
     * Schedules a backed-up post's first comments read (now) when its account keeps comments:
     * the setting is read and the read scheduled in one statement. Answers whether the account
     * keeps them (also when the read was already scheduled).
     */
    async scheduleFirstReadIfKept(
      post: { id: string; account_id: string; posted_at: Date },
      now: Date,
    ): Promise<boolean> {
      const { rows } = await sql<{ kept: boolean }>`
        WITH kept AS (
          SELECT account_id FROM comment_settings
           WHERE account_id = ${post.account_id}::uuid AND enabled
        ), scheduled AS (
          INSERT INTO comment_reads (post_id, account_id, posted_at, next_read_at)
          SELECT ${post.id}::uuid, account_id, ${post.posted_at}::timestamptz, ${now}::timestamptz
            FROM kept
          ON CONFLICT (post_id) DO NOTHING
        )
        SELECT EXISTS (SELECT 1 FROM kept) AS kept`.execute(db);
      return rows[0]?.kept === true;
    },

    async hasDueReads(accountId: string, now: Date): Promise<boolean> {
      const row = await db
        .selectFrom("comment_reads")
        .select("post_id")
        .where("account_id", "=", accountId)
        .where("next_read_at", "<=", now)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    dueReads(accountId: string, now: Date, limit: number) {
      return db
        .selectFrom("comment_reads")
        .selectAll()
        .where("account_id", "=", accountId)
        .where("next_read_at", "<=", now)
        .orderBy("next_read_at")
        .limit(limit)
        .execute();
    },

    /**
     * Saves one full read of a post's comments: new ones added, known ones updated, and those
     * Instagram no longer returns marked removed (never deleted); one that returns is unmarked.
     */
    async saveRead(postId: string, comments: GraphComment[], now: Date) {
      await inTransaction(db, async (trx) => {
        if (comments.length > 0) {
          for (let i = 0; i < comments.length; i += 500) {
            await trx
              .insertInto("post_comments")
              .values(
                comments.slice(i, i + 500).map((c) => ({
                  post_id: postId,
                  comment_id: c.id,
                  parent_id: c.parentId,
                  username: c.username,
                  text: c.text,
                  like_count: c.likeCount,
                  hidden: c.hidden,
                  commented_at: c.timestamp,
                  first_seen_at: now,
                  last_seen_at: now,
                })),
              )
              .onConflict((oc) =>
                oc.columns(["post_id", "comment_id"]).doUpdateSet((eb) => ({
                  text: eb.ref("excluded.text"),
                  like_count: eb.ref("excluded.like_count"),
                  hidden: eb.ref("excluded.hidden"),
                  username: eb.ref("excluded.username"),
                  last_seen_at: now,
                  removed_at: null,
                })),
              )
              .execute();
          }
        }
        await trx
          .updateTable("post_comments")
          .set({ removed_at: now })
          .where("post_id", "=", postId)
          .where("removed_at", "is", null)
          .where(sql<boolean>`comment_id <> ALL(${comments.map((c) => c.id)}::text[])`)
          .execute();
      });
    },

    finishRead(
      postId: string,
      f: {
        last_read_at: Date;
        next_read_at: Date;
        drive_file_id: string | null;
        drive_md5: string | null;
        drive_destination: DestinationKind;
        drive_owner: string;
      },
    ) {
      return db.updateTable("comment_reads").set(f).where("post_id", "=", postId).execute();
    },

    /** Not read now (no file to write beside, or Instagram refused): try again at `at`. */
    postpone(postId: string, at: Date) {
      return db
        .updateTable("comment_reads")
        .set({ next_read_at: at })
        .where("post_id", "=", postId)
        .execute();
    },

    listComments(postId: string) {
      return db
        .selectFrom("post_comments")
        .selectAll()
        .where("post_id", "=", postId)
        .orderBy("commented_at")
        .orderBy("comment_id")
        .execute();
    },

    async readState(postId: string) {
      return db
        .selectFrom("comment_reads")
        .select(["last_read_at", "next_read_at"])
        .where("post_id", "=", postId)
        .executeTakeFirst();
    },

    /** Comments kept per account (Settings says what stays in Drive when turned off). */
    async keptCounts(accountIds: string[]): Promise<Map<string, number>> {
      const out = new Map<string, number>();
      if (accountIds.length === 0) return out;
      const rows = await db
        .selectFrom("comment_reads as r")
        .innerJoin("post_comments as c", "c.post_id", "r.post_id")
        .select(["r.account_id", sql<string>`count(*)`.as("n")])
        .where("r.account_id", "in", accountIds)
        .groupBy("r.account_id")
        .execute();
      for (const r of rows) out.set(r.account_id, Number(r.n));
      return out;
    },
  };
}

export type CommentsRepository = ReturnType<typeof createCommentsRepository>;
