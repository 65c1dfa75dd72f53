import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";
import type { PostChild, PostRow } from "./tables.ts";

/** A plan's post limit: how many of a user's newest posts may be backed up, and why the rest may not. */
export interface PostLimit {
  limit: number | null;
  reason: string | null;
}

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

/** How old a post's stored CDN URLs may grow before a sync that saw the post rewrites them. */
export const MEDIA_URLS_REFRESH_MS = 3600_000;

/** The columns that say what a post is, compared with what a sync read. */
const COMPARED = [
  "instagram_id",
  "media_type",
  "media_product_type",
  "caption",
  "posted_at",
  "like_count",
  "comments_count",
  "permalink",
  "shortcode",
] as const;

type StoredPost = Pick<
  PostRow,
  (typeof COMPARED)[number] | "media_url" | "thumbnail_url" | "children"
>;

/** Whether Instagram's copy differs from ours in anything but the URLs' signatures. */
function changed(s: StoredPost, p: PostUpsert): boolean {
  const same =
    s.media_type === p.media_type &&
    s.media_product_type === p.media_product_type &&
    s.caption === p.caption &&
    new Date(s.posted_at).getTime() === new Date(p.posted_at).getTime() &&
    s.like_count === p.like_count &&
    s.comments_count === p.comments_count &&
    s.permalink === p.permalink &&
    s.shortcode === p.shortcode &&
    (s.media_url === null) === (p.media_url === null) &&
    (s.thumbnail_url === null) === (p.thumbnail_url === null) &&
    s.children.map((c) => c.id).join() === p.children.map((c) => c.id).join();
  return !same;
}

/** The posts table: what a sync found, the plan's post limit, the posts a backup reads. */
export function createPostsRepository(db: Kysely<Database>) {
  async function upsert(posts: PostUpsert[], now: Date): Promise<void> {
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
  }

  return {
    /** The ids of a user's posts (their queued backups are dropped when the user is deleted). */
    async idsOfUser(userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom("posts")
        .select("id")
        .where("user_id", "=", userId)
        .execute();
      return rows.map((r) => r.id);
    },

    /**
     * Saves what a sync read of the account's posts and answers which of them were known
     * before. Only new and changed posts are written, so a sync of an unchanged account writes
     * no row (issue 13); a post's signed CDN URLs change on every read, so they alone make a
     * post worth writing only once the stored ones are MEDIA_URLS_REFRESH_MS old (they last
     * days).
     */
    async savePosts(accountId: string, posts: PostUpsert[], now: Date): Promise<Set<string>> {
      if (posts.length === 0) return new Set();
      const stored = await db
        .selectFrom("posts")
        .select([...COMPARED, "media_url", "thumbnail_url", "children", "updated_at"])
        .where("account_id", "=", accountId)
        .where(
          "instagram_id",
          "in",
          posts.map((p) => p.instagram_id),
        )
        .execute();
      const byId = new Map(stored.map((r) => [r.instagram_id, r]));
      const toWrite = posts.filter((p) => {
        const s = byId.get(p.instagram_id);
        return (
          !s || changed(s, p) || now.getTime() - s.updated_at.getTime() >= MEDIA_URLS_REFRESH_MS
        );
      });
      if (toWrite.length > 0) await upsert(toWrite, now);
      return new Set(byId.keys());
    },

    /**
     * An item an import put in Drive, as a post of its account (source 'export'); answers its
     * id, or null when the account already has a post of that id (from the API: its own
     * backup stands).
     */
    async recordImported(
      p: Omit<
        PostUpsert,
        "like_count" | "comments_count" | "permalink" | "shortcode" | "media_url" | "thumbnail_url"
      >,
      now: Date,
    ): Promise<string | null> {
      const inserted = await db
        .insertInto("posts")
        .values({
          ...p,
          children: JSON.stringify(p.children),
          source: "export",
          first_seen_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(["account_id", "instagram_id"]).doNothing())
        .returning(["id"])
        .executeTakeFirst();
      if (inserted) return inserted.id;
      const mine = await db
        .selectFrom("posts")
        .select("id")
        .where("account_id", "=", p.account_id)
        .where("instagram_id", "=", p.instagram_id)
        .where("source", "=", "export")
        .executeTakeFirst();
      return mine?.id ?? null;
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
     * The plan's post limit: the user's newest `limit` posts may be backed up, older ones are
     * marked with `reason`; with no limit every mark is cleared. (A function of migration 0990,
     * which the claim of a backup sync calls too.)
     */
    async applyPostLimit(userId: string, { limit, reason }: PostLimit) {
      await sql`SELECT apply_post_limit(${userId}, ${limit}::integer, ${reason}::text)`.execute(db);
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

    findAccountPost(accountId: string, instagramId: string) {
      return db
        .selectFrom("posts")
        .selectAll()
        .where("account_id", "=", accountId)
        .where("instagram_id", "=", instagramId)
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

    /**
     * What an import matches its items against (issue 31): the account's posts from the API
     * with one of `ids` (as the post or a carousel child), or posted between `from` and `to`.
     * (Imported posts are the import's own items: it matches those itself.)
     */
    async postsForImportMatch(accountId: string, ids: string[], from: Date, to: Date) {
      const rows = await db
        .selectFrom("posts")
        .select(["instagram_id", "posted_at", "caption", "children"])
        .where("account_id", "=", accountId)
        .where("source", "=", "api")
        .where((eb) =>
          eb.or([
            // One array parameter: a large export names more ids than a statement has parameters.
            ...(ids.length > 0 ? [sql<boolean>`instagram_id = ANY(${ids}::text[])`] : []),
            eb.and([eb("posted_at", ">=", from), eb("posted_at", "<=", to)]),
          ]),
        )
        .execute();
      return rows.map((r) => ({
        instagram_id: r.instagram_id,
        posted_at: new Date(r.posted_at),
        caption: r.caption,
        child_ids: (r.children ?? []).map((c) => c.id),
      }));
    },

    /**
     * The times of the user's `limit` newest posts from the API, newest first (the import's
     * post limit ranks them with its own items, imported ones included).
     */
    async newestPostTimes(userId: string, limit: number): Promise<Date[]> {
      const rows = await db
        .selectFrom("posts")
        .select("posted_at")
        .where("user_id", "=", userId)
        .where("source", "=", "api")
        .orderBy("posted_at", "desc")
        .limit(limit)
        .execute();
      return rows.map((r) => new Date(r.posted_at));
    },
  };
}

export type PostsRepository = ReturnType<typeof createPostsRepository>;
