import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";
import type { PostChild, PostRow } from "../db/sync-tables.ts";

/** What a sync writes of a post: the columns Instagram fills, as the row reads them. */
export type PostUpsert = Pick<
  PostRow,
  | "user_id"
  | "account_id"
  | "instagram_id"
  | "media_type"
  | "media_product_type"
  | "caption"
  | "posted_at"
  | "like_count"
  | "comments_count"
  | "permalink"
  | "shortcode"
  | "media_url"
  | "thumbnail_url"
  | "children"
>;

/** The posts table: what a sync found, the plan's post limit, the posts a backup reads. */
export function createPostsRepository(db: Kysely<Database>) {
  return {
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
  };
}

export type PostsRepository = ReturnType<typeof createPostsRepository>;
