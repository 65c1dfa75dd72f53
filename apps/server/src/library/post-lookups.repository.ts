import { sql } from "kysely";
import type { Db } from "../db/database.ts";

/**
 * The read side's narrow lookups of posts and their backups for other areas (the comments area): a post's owner,
 * an account's backed-up posts, and a backed-up post's sidecar in Drive.
 */
export function createPostLookupsRepository(db: Db) {
  return {
    post(postId: string) {
      return db
        .selectFrom("posts")
        .select(["id", "user_id", "account_id", "instagram_id", "posted_at", "media_product_type"])
        .where("id", "=", postId)
        .executeTakeFirst();
    },

    /** Posts of the account from the API whose backup completed (stories have no comments to read). */
    backedUpPosts(accountId: string) {
      return (
        db
          .selectFrom("posts as p")
          .innerJoin("backups as b", "b.post_id", "p.id")
          .select(["p.id as post_id", "p.posted_at"])
          .where("p.account_id", "=", accountId)
          // An imported post has no comments Instagram serves (archived, or a story).
          .where("p.source", "=", "api")
          .where("b.status", "=", "completed")
          .where((eb) =>
            eb.or([
              eb("p.media_product_type", "is", null),
              eb("p.media_product_type", "!=", "STORY"),
            ]),
          )
          .execute()
      );
    },

    /**
     * The post's `…_meta.json` as its backup recorded it, in the destination's account the
     * backup was completed in (absent until it is in Drive, or while it is copied to another).
     */
    sidecarOf(postId: string) {
      return db
        .selectFrom("posts as p")
        .innerJoin("backups as b", "b.post_id", "p.id")
        .innerJoin("backup_files as f", (j) =>
          j
            .onRef("f.backup_id", "=", "b.id")
            .onRef("f.destination", "=", "b.destination")
            .onRef("f.owner", "=", "b.owner"),
        )
        .select([
          "p.instagram_id",
          "p.permalink",
          "f.name",
          "f.drive_file_id",
          "b.destination",
          "b.owner",
        ])
        .where("p.id", "=", postId)
        .where(sql<boolean>`f.item_key = p.instagram_id || '_meta'`)
        .where("f.drive_file_id", "is not", null)
        .executeTakeFirst();
    },
  };
}

export type PostLookupsRepository = ReturnType<typeof createPostLookupsRepository>;
