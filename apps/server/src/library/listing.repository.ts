import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type { BackupRow, BackupRowStatus } from "../backups/tables.ts";
import type { Database } from "../db/schema.ts";
import type { GraphMediaType, PostRow } from "../sync/tables.ts";

/**
 * The reads behind the posts grid and the Backups list, shaped for a
 * million posts per user (issue 14): totals come from the counters that migration 0700 keeps
 * (post_counts, backup_counts), a page is chosen on an index that matches its filter and order
 * before any row is read in full, and caption search matches a lower-cased copy of each caption
 * (migration 0960) on a trigram index.
 */

export interface PostFilter {
  userId: string;
  accountId?: string | undefined;
  mediaType?: GraphMediaType | undefined;
  search?: string | undefined;
  /** Only these posts (the archive's posts no longer on Instagram); counted, not from counters. */
  only?: PostKey[] | undefined;
}

export interface BackupFilter {
  status?: BackupRowStatus | undefined;
  accountId?: string | undefined;
  only?: PostKey[] | undefined;
}

/** A post by its account and Instagram id. */
export interface PostKey {
  account_id: string;
  instagram_id: string;
}

/** `(account_id, instagram_id)` is one of `keys` (false for none). */
const amongKeys = (keys: PostKey[]) =>
  keys.length === 0
    ? sql<boolean>`false`
    : sql<boolean>`(account_id, instagram_id) IN (SELECT * FROM unnest(${keys.map((k) => k.account_id)}::uuid[], ${keys.map((k) => k.instagram_id)}::text[]))`;

export type BackupWithPost = BackupRow & { post: PostRow };
export type PostWithBackup = PostRow & {
  backup_status: BackupRowStatus | null;
  backup_error: string | null;
};

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

const POST_COLUMNS = [
  "p.id",
  "p.user_id",
  "p.account_id",
  "p.instagram_id",
  "p.media_type",
  "p.media_product_type",
  "p.caption",
  "p.posted_at",
  "p.like_count",
  "p.comments_count",
  "p.permalink",
  "p.shortcode",
  "p.media_url",
  "p.thumbnail_url",
  "p.children",
  "p.not_backed_up_reason",
  "p.source",
  "p.first_seen_at",
  "p.updated_at",
] as const;

type PostsQuery = SelectQueryBuilder<Database, "posts", object>;

export function listingQueries(db: Kysely<Database>) {
  /** The caller's posts that match the filter (every column predicate on `posts`). */
  function matchingPosts(f: PostFilter): PostsQuery {
    let q = db.selectFrom("posts").where("user_id", "=", f.userId) as PostsQuery;
    if (f.accountId) q = q.where("account_id", "=", f.accountId);
    if (f.mediaType) q = q.where("media_type", "=", f.mediaType);
    // The caption's lower-cased copy (migration 0960), matched with LIKE: as ILIKE, cheaper.
    if (f.search)
      q = q.where(sql<boolean>`caption_folded like lower(${`%${likeEscape(f.search)}%`})`);
    if (f.only) q = q.where(amongKeys(f.only));
    return q;
  }

  /**
   * The ids of the newest `atMost` matches, read down the filter's date index. A common word
   * stops after a few thousand of the newest captions, whose pages stay cached; a rare one is
   * found on the trigram index. (A count with no order would scan the table from wherever
   * another scan left off, through pages no one else reads.)
   */
  function newestMatches(f: PostFilter, atMost: number) {
    return matchingPosts(f)
      .select(["id", "posted_at"])
      .orderBy("posted_at", "desc")
      .orderBy("id")
      .limit(atMost);
  }

  /**
   * How many posts match. Without a search it is read from the counters. A search counts
   * matches, stopping at `atMost` (the answer is then `atMost`).
   */
  function totalOf(f: PostFilter, atMost: number) {
    if (f.search || f.only) {
      return db
        .selectFrom(newestMatches(f, atMost).as("m"))
        .select((eb) => eb.fn.countAll<number>().as("n"));
    }
    let q = db
      .selectFrom("post_counts")
      .select(sql<number>`coalesce(sum(n), 0)`.as("n"))
      .where("user_id", "=", f.userId);
    if (f.accountId) q = q.where("account_id", "=", f.accountId);
    if (f.mediaType) q = q.where("media_type", "=", f.mediaType);
    return q;
  }

  async function countPosts(f: PostFilter, atMost: number): Promise<number> {
    const row = await totalOf(f, atMost).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** How many backups match, from the counters. */
  function backupsTotalOf(userId: string, f: BackupFilter) {
    let q = db
      .selectFrom("backup_counts")
      .select(sql<number>`coalesce(sum(n), 0)`.as("n"))
      .where("user_id", "=", userId);
    if (f.accountId) q = q.where("account_id", "=", f.accountId);
    if (f.status) q = q.where("status", "=", f.status);
    return q;
  }

  /** The backups of the `only` posts that match (few: counted, not from the counters). */
  function onlyBackups(userId: string, f: BackupFilter & { only: PostKey[] }) {
    let q = db.selectFrom("backups").where("user_id", "=", userId);
    if (f.accountId) q = q.where("account_id", "=", f.accountId);
    if (f.status) q = q.where("status", "=", f.status);
    return q.where(
      "post_id",
      "in",
      db.selectFrom("posts").select("id").where("user_id", "=", userId).where(amongKeys(f.only)),
    );
  }

  async function countBackups(userId: string, f: BackupFilter): Promise<number> {
    if (f.only) {
      const row = await onlyBackups(userId, { ...f, only: f.only })
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }
    const row = await backupsTotalOf(userId, f).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * One page cut from `matches` (newest first, `offset` into them), read in full and joined to
   * its backups, each row carrying the total: `total`, or else how many `matches` there are.
   */
  function pageOfPosts(
    matches: ReturnType<typeof newestMatches>,
    offset: number,
    limit: number,
    total: ReturnType<typeof totalOf> | null,
  ) {
    return db
      .with("m", () => matches)
      .selectFrom((qb) =>
        qb
          .selectFrom("m")
          .select("id")
          .orderBy("posted_at", "desc")
          .orderBy("id")
          .limit(limit)
          .offset(offset)
          .as("page"),
      )
      .innerJoin("posts as p", "p.id", "page.id")
      .leftJoin("backups as b", "b.post_id", "p.id")
      .select([...POST_COLUMNS, "b.status as backup_status", "b.error_message as backup_error"])
      .select((eb) =>
        (total ?? eb.selectFrom("m").select(eb.fn.countAll<number>().as("n"))).as("total"),
      )
      .orderBy("p.posted_at", "desc")
      .orderBy("p.id")
      .execute();
  }

  return {
    matchingPosts,

    /**
     * One page of posts, newest first, with each post's backup status, and how many posts
     * match (`countPosts`), in one statement: the total is an InitPlan beside the page.
     */
    async postsPage(
      f: PostFilter,
      limit: number,
      offset: number,
      countAtMost: number,
    ): Promise<{ rows: PostWithBackup[]; total: number }> {
      // A search reads its matches once: the newest `countAtMost` are both the total and the
      // rows the page is cut from. Otherwise the page's ids come from the filter's index (an
      // index-only scan even at a deep offset) and the total from the counters.
      const rows = await (f.search
        ? pageOfPosts(newestMatches(f, countAtMost), offset, limit, null)
        : pageOfPosts(newestMatches(f, offset + limit), offset, limit, totalOf(f, countAtMost)));
      // A page past the end has no row to carry the total.
      const total = rows[0] ? Number(rows[0].total) : await countPosts(f, countAtMost);
      return { rows: rows.map(({ total: _, ...r }) => r) as PostWithBackup[], total };
    },

    countPosts,

    /**
     * One page of backups, most recently changed first, each with its post, and how many
     * backups match (from the counters), in one statement.
     */
    async backupsPage(
      userId: string,
      f: BackupFilter,
      limit: number,
      offset: number,
    ): Promise<{ rows: BackupWithPost[]; total: number }> {
      let page = db.selectFrom("backups").select("id").where("user_id", "=", userId);
      if (f.accountId) page = page.where("account_id", "=", f.accountId);
      if (f.status) page = page.where("status", "=", f.status);
      if (f.only) page = onlyBackups(userId, { ...f, only: f.only }).select("id");
      const rows = await db
        .selectFrom(
          page
            .orderBy("updated_at", "desc")
            .orderBy("id", "desc")
            .limit(limit)
            .offset(offset)
            .as("page"),
        )
        .innerJoin("backups as b", "b.id", "page.id")
        .innerJoin("posts as p", "p.id", "b.post_id")
        .selectAll("b")
        .select(sql<PostRow>`to_jsonb(p)`.as("post_json"))
        .select(
          f.only
            ? (eb) =>
                onlyBackups(userId, { ...f, only: f.only ?? [] })
                  .select(eb.fn.countAll<number>().as("n"))
                  .as("total")
            : backupsTotalOf(userId, f).as("total"),
        )
        .orderBy("b.updated_at", "desc")
        .orderBy("b.id", "desc")
        .execute();
      // A page past the end has no row to carry the total.
      const total = rows[0] ? Number(rows[0].total) : await countBackups(userId, f);
      return {
        rows: rows.map(({ post_json, total: _, ...b }) => ({
          ...(b as BackupRow),
          post: post_json,
        })),
        total,
      };
    },

    countBackups,
  };
}

export type ListingRepository = ReturnType<typeof listingQueries>;
