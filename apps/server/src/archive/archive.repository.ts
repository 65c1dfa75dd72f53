import { type ArchiveCounters, archiveCounters } from "@keepsake/contracts";
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";
import { countersOf, MISSED_APART_MS } from "./archive.rules.ts";
import type { StatsCsvRow } from "./stats-csv.ts";
import type { MetricsReason } from "./tables.ts";

/** One post as a media page shows it, with its counters. */
export interface SeenPost extends ArchiveCounters {
  instagramId: string;
  postedAt: Date;
}

/** What the archive knows of a post a page shows: its latest reading and whether walks miss it. */
export interface KnownState extends ArchiveCounters {
  instagram_id: string;
  present: boolean;
  missed: boolean;
  gone: boolean;
  last_at: Date | null;
}

export interface Reading extends SeenPost {
  reason: MetricsReason;
}

export interface WalkState {
  last_walk_at: Date | null;
  media_count: number | null;
  oldest_pending_miss_at: Date | null;
}

/** The account's last walk, the profile's media_count then, and its oldest unconfirmed miss. */
const walkStateQuery = (accountId: string) => sql`
  SELECT w.last_walk_at, w.media_count,
         (SELECT min(last_missed_at) FROM post_presence
           WHERE account_id = ${accountId} AND first_missed_at IS NOT NULL
             AND gone_detected_at IS NULL) AS oldest_pending_miss_at
    FROM (SELECT 1) AS one
    LEFT JOIN archive_walks w ON w.account_id = ${accountId}`;

/** The reading's counters of the post_metrics row aliased `m`, as a select list. */
const readingColumns = sql.join(archiveCounters.map((c) => sql.ref(`m.${c}`)));

/** A post's readings and presence (`life`). */
export interface PostLife {
  readings: ({ at: Date; reason: MetricsReason } & ArchiveCounters)[];
  presence: { user_id: string; last_seen_at: Date; gone_detected_at: Date | null } | null;
}

/** SQL of the archive area's tables: post_metrics, post_presence, archive_walks. */
export function createArchiveRepository(db: Kysely<Database>) {
  return {
    /**
     * The archive's state of each post a page shows, and with `withWalk` the account's walk
     * state in the same statement (the first page of a sync decides whether it walks).
     */
    async knownStates(
      accountId: string,
      instagramIds: string[],
      withWalk: boolean,
    ): Promise<{ posts: KnownState[]; walk: WalkState | null }> {
      if (instagramIds.length === 0)
        return { posts: [], walk: withWalk ? await this.walkState(accountId) : null };
      const { rows } = await sql<KnownState & Partial<WalkState>>`
        SELECT i.id AS instagram_id,
               p.account_id IS NOT NULL AS present,
               COALESCE(p.first_missed_at IS NOT NULL, false) AS missed,
               COALESCE(p.gone_detected_at IS NOT NULL, false) AS gone,
               m.at AS last_at, ${readingColumns}
               ${withWalk ? sql`, w.last_walk_at, w.media_count, w.oldest_pending_miss_at` : sql``}
          FROM unnest(${instagramIds}::text[]) AS i(id)
          LEFT JOIN post_presence p ON p.account_id = ${accountId} AND p.instagram_id = i.id
          LEFT JOIN LATERAL (
            SELECT * FROM post_metrics m
             WHERE m.account_id = ${accountId} AND m.instagram_id = i.id
             ORDER BY m.at DESC LIMIT 1
          ) m ON true
          ${withWalk ? sql`CROSS JOIN (${walkStateQuery(accountId)}) w` : sql``}`.execute(db);
      const first = rows[0];
      return {
        posts: rows,
        walk:
          withWalk && first
            ? {
                last_walk_at: first.last_walk_at ?? null,
                media_count: first.media_count ?? null,
                oldest_pending_miss_at: first.oldest_pending_miss_at ?? null,
              }
            : null,
      };
    },

    /**
     * Records posts as seen now: new ones are added, missed or gone ones come back. A walk
     * stamps every post it saw.
     */
    async markSeen(
      account: { id: string; user_id: string },
      posts: { instagramId: string; postedAt: Date }[],
      now: Date,
    ) {
      if (posts.length === 0) return;
      await sql`
        INSERT INTO post_presence (account_id, instagram_id, user_id, posted_at, last_seen_at)
        SELECT ${account.id}, i, ${account.user_id}, p, ${now}
          FROM unnest(${posts.map((p) => p.instagramId)}::text[],
                      ${posts.map((p) => p.postedAt.toISOString())}::timestamptz[]) AS t(i, p)
        ON CONFLICT (account_id, instagram_id) DO UPDATE
           SET last_seen_at = EXCLUDED.last_seen_at, first_missed_at = NULL,
               last_missed_at = NULL, gone_detected_at = NULL`.execute(db);
    },

    async insertReadings(accountId: string, readings: Reading[], now: Date) {
      if (readings.length === 0) return;
      await db
        .insertInto("post_metrics")
        .values(
          readings.map((r) => ({
            account_id: accountId,
            instagram_id: r.instagramId,
            at: now,
            reason: r.reason,
            ...countersOf(r),
          })),
        )
        .onConflict((oc) => oc.columns(["account_id", "instagram_id", "at"]).doNothing())
        .execute();
    },

    async walkState(accountId: string): Promise<WalkState> {
      const { rows } = await sql<WalkState>`${walkStateQuery(accountId)}`.execute(db);
      return rows[0]!;
    },

    /**
     * After a whole walk that started at `startedAt`: every post it did not see is missed by
     * it (posts older than `olderLimit` excepted: the list does not reach them). Answers the
     * posts missed by walks at least a day apart, not yet confirmed gone.
     */
    async recordWalk(
      account: { id: string; media_count: number | null },
      startedAt: Date,
      olderLimit: Date | null,
      limit: number,
    ): Promise<string[]> {
      await sql`
        UPDATE post_presence
           SET first_missed_at = COALESCE(first_missed_at, ${startedAt}), last_missed_at = ${startedAt}
         WHERE account_id = ${account.id} AND last_seen_at < ${startedAt}
           AND gone_detected_at IS NULL
           ${olderLimit ? sql`AND posted_at >= ${olderLimit}` : sql``}`.execute(db);
      await db
        .insertInto("archive_walks")
        .values({
          account_id: account.id,
          last_walk_at: startedAt,
          media_count: account.media_count,
        })
        .onConflict((oc) =>
          oc.column("account_id").doUpdateSet({
            last_walk_at: startedAt,
            media_count: account.media_count,
          }),
        )
        .execute();
      const { rows } = await sql<{ instagram_id: string }>`
        SELECT instagram_id FROM post_presence
         WHERE account_id = ${account.id} AND gone_detected_at IS NULL
           AND first_missed_at IS NOT NULL
           AND last_missed_at - first_missed_at >= ${`${MISSED_APART_MS / 1000} seconds`}::interval
         ORDER BY first_missed_at, instagram_id
         LIMIT ${limit}`.execute(db);
      return rows.map((r) => r.instagram_id);
    },

    /** A post this walk saw, to check the token still reads posts before confirming misses. */
    async seenSince(accountId: string, since: Date): Promise<string | null> {
      const row = await db
        .selectFrom("post_presence")
        .select("instagram_id")
        .where("account_id", "=", accountId)
        .where("last_seen_at", ">=", since)
        .orderBy("posted_at", "desc")
        .limit(1)
        .executeTakeFirst();
      return row?.instagram_id ?? null;
    },

    async markGone(accountId: string, instagramIds: string[], now: Date) {
      if (instagramIds.length === 0) return;
      await db
        .updateTable("post_presence")
        .set({ gone_detected_at: now })
        .where("account_id", "=", accountId)
        .where("instagram_id", "in", instagramIds)
        .where("gone_detected_at", "is", null)
        .execute();
    },

    /**
     * A post's life in one statement: its readings, oldest first, and its presence (who owns
     * it, when a walk last saw it, since when it is gone), or null before a walk has seen it.
     */
    async life(accountId: string, instagramId: string): Promise<PostLife> {
      const { rows } = await sql<{
        readings: (Omit<PostLife["readings"][number], "at"> & { at: string })[];
        user_id: string | null;
        last_seen_at: Date | null;
        gone_detected_at: Date | null;
      }>`
        SELECT COALESCE((
                 SELECT json_agg(json_build_object('at', m.at, 'reason', m.reason, ${sql.join(
                   archiveCounters.map((c) => sql`${sql.lit(c)}, ${sql.ref(`m.${c}`)}`),
                 )}) ORDER BY m.at)
                   FROM post_metrics m
                  WHERE m.account_id = ${accountId} AND m.instagram_id = ${instagramId}
               ), '[]'::json) AS readings,
               p.user_id, p.last_seen_at, p.gone_detected_at
          FROM (SELECT 1) one
          LEFT JOIN post_presence p
            ON p.account_id = ${accountId} AND p.instagram_id = ${instagramId}`.execute(db);
      const row = rows[0];
      return {
        readings: (row?.readings ?? []).map((r) => ({ ...r, at: new Date(r.at) })),
        presence: row?.user_id
          ? {
              user_id: row.user_id,
              last_seen_at: row.last_seen_at as Date,
              gone_detected_at: row.gone_detected_at,
            }
          : null,
      };
    },

    /** The latest reading and the presence of each of the given posts (a page of tiles). */
    async postsState(keys: { account_id: string; instagram_id: string }[]) {
      if (keys.length === 0) return [];
      const { rows } = await sql<{
        account_id: string;
        instagram_id: string;
        read_at: Date | null;
        likes: number | null;
        comments: number | null;
        views: number | null;
        last_seen_at: Date | null;
        gone_detected_at: Date | null;
      }>`
        SELECT k.a AS account_id, k.i AS instagram_id, m.at AS read_at, m.likes, m.comments,
               m.views, p.last_seen_at, p.gone_detected_at
          FROM unnest(${keys.map((k) => k.account_id)}::uuid[], ${keys.map((k) => k.instagram_id)}::text[]) AS k(a, i)
          LEFT JOIN post_presence p ON p.account_id = k.a AND p.instagram_id = k.i
          LEFT JOIN LATERAL (
            SELECT at, likes, comments, views FROM post_metrics m
             WHERE m.account_id = k.a AND m.instagram_id = k.i
             ORDER BY m.at DESC LIMIT 1
          ) m ON true`.execute(db);
      return rows;
    },

    /** The user's posts confirmed gone from Instagram (optionally of one account). */
    goneKeys(userId: string, accountId?: string) {
      let q = db
        .selectFrom("post_presence")
        .select(["account_id", "instagram_id"])
        .where("user_id", "=", userId)
        .where("gone_detected_at", "is not", null);
      if (accountId) q = q.where("account_id", "=", accountId);
      return q.execute();
    },

    /**
     * The user's posts per month (UTC) with their latest counters summed: every post Keepsake
     * has (stories, imported ones and those beyond the plan's limit included), the dashboard's
     * Total Posts and the accounts panel's "In Keepsake" (one definition, issue 36).
     */
    async monthly(userId: string, accountId: string | undefined) {
      const { rows } = await sql<{
        month: string;
        posts: string;
        stories: string;
        likes: string | null;
        comments: string | null;
        views: string | null;
      }>`
        SELECT to_char(date_trunc('month', p.posted_at AT TIME ZONE 'UTC'), 'YYYY-MM') AS month,
               count(*) AS posts,
               count(*) FILTER (WHERE p.media_product_type = 'STORY') AS stories,
               sum(m.likes) AS likes, sum(m.comments) AS comments,
               sum(m.views) AS views
          FROM posts p
          LEFT JOIN LATERAL (
            SELECT likes, comments, views FROM post_metrics m
             WHERE m.account_id = p.account_id AND m.instagram_id = p.instagram_id
             ORDER BY m.at DESC LIMIT 1
          ) m ON true
         WHERE p.user_id = ${userId} ${accountId ? sql`AND p.account_id = ${accountId}` : sql``}
         GROUP BY 1 ORDER BY 1`.execute(db);
      return rows;
    },

    async goneCount(userId: string, accountId: string | undefined) {
      let q = db
        .selectFrom("post_presence")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("user_id", "=", userId)
        .where("gone_detected_at", "is not", null);
      if (accountId) q = q.where("account_id", "=", accountId);
      return Number((await q.executeTakeFirstOrThrow()).n);
    },

    /**
     * The stats CSV's rows: every feed post of the user (or one account), newest first, named
     * as the grid names it, with each of its readings oldest first (`history`) or its latest
     * one (`snapshot`). A post with no reading yet has one row, its counters empty.
     */
    async statsRows(
      userId: string,
      accountId: string | undefined,
      view: "history" | "snapshot",
    ): Promise<StatsCsvRow[]> {
      const readings =
        view === "snapshot"
          ? sql`LEFT JOIN LATERAL (
              SELECT * FROM post_metrics m
               WHERE m.account_id = p.account_id AND m.instagram_id = p.instagram_id
               ORDER BY m.at DESC LIMIT 1
            ) m ON true`
          : sql`LEFT JOIN post_metrics m
              ON m.account_id = p.account_id AND m.instagram_id = p.instagram_id`;
      const { rows } = await sql<StatsCsvRow>`
        SELECT p.account_id, p.instagram_id, p.posted_at, p.gone_detected_at,
               po.id AS post_id, po.media_type, po.media_product_type, po.caption, po.permalink,
               m.at, m.reason, ${readingColumns}
          FROM post_presence p
          LEFT JOIN posts po ON po.account_id = p.account_id AND po.instagram_id = p.instagram_id
          ${readings}
         WHERE p.user_id = ${userId} ${accountId ? sql`AND p.account_id = ${accountId}` : sql``}
         ORDER BY p.posted_at DESC, p.instagram_id, m.at`.execute(db);
      return rows;
    },
  };
}

export type ArchiveRepository = ReturnType<typeof createArchiveRepository>;
