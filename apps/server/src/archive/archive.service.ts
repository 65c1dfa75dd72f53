import { type ArchiveCounter, archiveCounters } from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { asError } from "../lib/log.ts";
import type { GraphMedia } from "../providers/instagram/media.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import type { ArchiveRepository, Reading, SeenPost } from "./archive.repository.ts";
import {
  type Counters,
  countersOf,
  MEDIA_EDGE_MAX,
  PROBES_PER_WALK,
  readingDue,
  restoreUntil,
  walkDue,
} from "./archive.rules.ts";
import { statsCsv } from "./stats-csv.ts";

/** Where the archive reports (no tokens, ids only). */
export interface ArchiveLog {
  warn(obj: object, msg: string): void;
}

export interface ArchiveServiceDeps {
  repo: ArchiveRepository;
  clock: Clock;
  /** Rewrites the sidecars of these posts in Drive (queued; each is a no-op until backed up). */
  refreshSidecars(posts: { accountId: string; instagramId: string }[]): Promise<void>;
  /** The user's Instagram accounts by id, as their usernames (the CSV's account column). */
  accountNames?(userId: string): Promise<Map<string, string>>;
  log?: ArchiveLog;
}

/** One whole walk of an account's media list, as the sync engine ran it. */
export interface FinishedWalk {
  startedAt: Date;
  /** Feed posts the walk listed, and the oldest one's time. */
  seen: number;
  oldestSeen: Date | null;
  /** GET /{media-id} through the account's token and the Graph pacer (throws the provider's error). */
  probe(instagramId: string): Promise<unknown>;
}

/** Each counter as the Graph media client names it. */
const GRAPH_COUNTER: Record<ArchiveCounter, keyof GraphMedia & `${string}Count`> = {
  likes: "likeCount",
  comments: "commentsCount",
  views: "viewCount",
  saves: "savedCount",
  shares: "sharesCount",
  reposts: "repostsCount",
};

const toSeen = (g: GraphMedia): SeenPost => ({
  instagramId: g.id,
  postedAt: g.timestamp,
  ...(Object.fromEntries(archiveCounters.map((c) => [c, g[GRAPH_COUNTER[c]]])) as Counters),
});

/** Instagram's answer for a media id that no longer exists (or cannot be read): 100 / 33. */
export const isObjectMissing = (err: unknown) =>
  err instanceof ProviderError &&
  (err.provider === "instagram" || err.provider === "facebook") &&
  Number(err.code) === 100 &&
  err.subcode === 33;

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/** A reading as the API and the sidecar show it (absent counters left out). */
function readingOut(r: Counters & { at: Date }) {
  const out: Record<string, string | number> = { at: new Date(r.at).toISOString() };
  for (const c of archiveCounters) {
    const n = r[c];
    if (n !== null) out[c] = n;
  }
  return out;
}

/**
 * The archive (issue 30): each post's engagement history, read from the media pages the sync
 * already fetches, and which posts are no longer on Instagram, found by walking the whole list.
 */
export function createArchiveService(deps: ArchiveServiceDeps) {
  const { repo, clock } = deps;

  return {
    /** Whether a sync of the account now walks the whole media list, and why (null: it does not). */
    async walkDue(
      account: { id: string; media_count: number | null },
      usagePercent: number | null,
    ) {
      const w = await repo.walkState(account.id);
      return walkDue({
        now: clock.now(),
        lastWalkAt: w.last_walk_at,
        mediaCount: account.media_count,
        mediaCountAtWalk: w.media_count,
        oldestPendingMissAt: w.oldest_pending_miss_at,
        usagePercent,
      });
    },

    /**
     * A media page the sync read: the counters of its feed posts (stories are not followed),
     * and which it saw. `walk` says whether the sync walks the whole list; "decide" (the first
     * page of an account whose history is complete) asks the archive, with the account's
     * profile media_count and Graph usage, in the same statement that reads the page's posts.
     */
    async recordPage(
      account: { id: string; user_id: string; media_count: number | null },
      media: GraphMedia[],
      walk: boolean | { decide: true; usagePercent: number | null },
    ): Promise<{ walk: string | null }> {
      const now = clock.now();
      const deciding = typeof walk === "object";
      const feed = media.filter((m) => m.productType !== "STORY").map(toSeen);
      if (feed.length === 0 && !deciding) return { walk: walk ? "walk" : null };
      const known = await repo.knownStates(
        account.id,
        feed.map((p) => p.instagramId),
        deciding,
      );
      let walking = walk === true;
      let reason: string | null = walk === true ? "walk" : null;
      if (deciding && known.walk) {
        reason = walkDue({
          now,
          lastWalkAt: known.walk.last_walk_at,
          mediaCount: account.media_count,
          mediaCountAtWalk: known.walk.media_count,
          oldestPendingMissAt: known.walk.oldest_pending_miss_at,
          usagePercent: walk.usagePercent,
        });
        walking = reason !== null;
      }
      const states = new Map(known.posts.map((s) => [s.instagram_id, s]));
      const readings: Reading[] = [];
      const seen: SeenPost[] = [];
      const changed: { accountId: string; instagramId: string }[] = [];
      for (const p of feed) {
        const s = states.get(p.instagramId);
        const due = readingDue({
          postedAt: p.postedAt,
          now,
          last: s?.last_at ? { at: new Date(s.last_at), counters: s } : null,
          counters: p,
          walk: walking,
        });
        if (due) readings.push({ ...p, reason: due });
        if (walking || !s?.present || s.missed || s.gone) seen.push(p);
        // The first reading goes into the sidecar the backup writes; later ones, and a post
        // that comes back, rewrite it.
        if ((due && due !== "backup") || s?.gone)
          changed.push({ accountId: account.id, instagramId: p.instagramId });
      }
      await repo.markSeen(account, seen, now);
      await repo.insertReadings(account.id, readings, now);
      if (changed.length > 0) await deps.refreshSidecars(changed);
      return { walk: reason };
    },

    /**
     * After a whole walk: posts it missed are noted; a post missed by walks a day apart is
     * asked for by id, and marked gone only when Instagram answers 100/33 while a post this walk
     * saw still resolves (a token that stopped working throws from that first call: nothing is
     * marked). A post that resolves is seen again.
     */
    async finishWalk(
      account: { id: string; user_id: string; media_count: number | null },
      walk: FinishedWalk,
    ) {
      const truncated = walk.seen >= MEDIA_EDGE_MAX ? walk.oldestSeen : null;
      const candidates = await repo.recordWalk(account, walk.startedAt, truncated, PROBES_PER_WALK);
      if (candidates.length === 0) return { gone: [] as string[] };
      const control = await repo.seenSince(account.id, walk.startedAt);
      if (!control) return { gone: [] as string[] };
      await walk.probe(control);
      const gone: string[] = [];
      const back: { instagramId: string; postedAt: Date }[] = [];
      for (const id of candidates) {
        try {
          const found = (await walk.probe(id)) as { timestamp?: Date } | undefined;
          back.push({ instagramId: id, postedAt: found?.timestamp ?? walk.startedAt });
        } catch (err) {
          if (isObjectMissing(err)) gone.push(id);
          else if (err instanceof ProviderError && err.kind === "token_invalid") throw err;
          else deps.log?.warn({ accountId: account.id, err: asError(err) }, "archive probe failed");
        }
      }
      const now = clock.now();
      await repo.markSeen(account, back, now);
      await repo.markGone(account.id, gone, now);
      if (gone.length > 0)
        await deps.refreshSidecars(
          gone.map((instagramId) => ({ accountId: account.id, instagramId })),
        );
      return { gone };
    },

    /** What the post's sidecar says of its life: the readings and whether it is on Instagram. */
    async sidecarFields(accountId: string, instagramId: string) {
      const { readings, presence } = await repo.life(accountId, instagramId);
      const gone = presence?.gone_detected_at ?? null;
      return {
        metrics: readings.map(readingOut),
        instagram_status: gone ? ("gone" as const) : ("on_instagram" as const),
        gone_detected_at: iso(gone),
      };
    },

    /**
     * The archive's view of a page of posts: the counters of its latest reading (likes,
     * comments and views together, so a tile, the detail view's header and the last point of
     * its chart say the same), gone or not, restore date. A post with no reading yet (a story,
     * an imported item) keeps what its row says.
     */
    async postsState(keys: { account_id: string; instagram_id: string }[]) {
      const rows = await repo.postsState(keys);
      return new Map(
        rows.map((r) => [
          `${r.account_id}:${r.instagram_id}`,
          {
            ...(r.read_at
              ? { like_count: r.likes, comments_count: r.comments, counted_at: iso(r.read_at) }
              : {}),
            view_count: r.views,
            instagram_status: r.gone_detected_at ? ("gone" as const) : ("on_instagram" as const),
            gone_detected_at: iso(r.gone_detected_at),
            restore_until:
              r.gone_detected_at && r.last_seen_at
                ? restoreUntil(new Date(r.last_seen_at)).toISOString()
                : null,
          },
        ]),
      );
    },

    /** The user's posts confirmed gone, as `account:instagram id` keys (the filters). */
    async goneKeys(userId: string, accountId?: string) {
      return (await repo.goneKeys(userId, accountId)).map((r) => ({
        account_id: r.account_id,
        instagram_id: r.instagram_id,
      }));
    },

    /** A post's readings, oldest first (its detail view's chart); `userId` must own it. */
    async history(accountId: string, instagramId: string, userId?: string) {
      const { readings: rows, presence } = await repo.life(accountId, instagramId);
      if (userId !== undefined && presence?.user_id !== userId)
        throw new AppError("not_found", "Post not found");
      if (!presence && rows.length === 0) throw new AppError("not_found", "Post not found");
      return {
        metrics: rows.map((r) => ({
          at: new Date(r.at).toISOString(),
          reason: r.reason,
          ...countersOf(r),
        })),
        gone_detected_at: iso(presence?.gone_detected_at),
        restore_until:
          presence?.gone_detected_at && presence.last_seen_at
            ? restoreUntil(new Date(presence.last_seen_at)).toISOString()
            : null,
      };
    },

    /**
     * Posts per month and their engagement (the account's charts): every post Keepsake keeps,
     * counted as the dashboard's Total Posts and the accounts panel's "In Keepsake" (issue 36).
     */
    async stats(userId: string, accountId?: string) {
      const [months, gone] = await Promise.all([
        repo.monthly(userId, accountId),
        repo.goneCount(userId, accountId),
      ]);
      const rows = months.map((m) => ({
        month: m.month,
        posts: Number(m.posts),
        likes: Number(m.likes ?? 0),
        comments: Number(m.comments ?? 0),
        views: Number(m.views ?? 0),
      }));
      return {
        months: rows,
        posts: rows.reduce((n, m) => n + m.posts, 0),
        stories: months.reduce((n, m) => n + Number(m.stories), 0),
        gone,
      };
    },

    /**
     * The stats CSV (RFC 4180): one row per post per reading (`history`), or per post with its
     * latest reading (`snapshot`); see stats-csv.ts.
     */
    async statsCsv(
      userId: string,
      accountId: string | undefined,
      view: "history" | "snapshot" = "history",
    ): Promise<string> {
      const [rows, names] = await Promise.all([
        repo.statsRows(userId, accountId, view),
        deps.accountNames ? deps.accountNames(userId) : new Map<string, string>(),
      ]);
      return statsCsv(rows, names);
    },
  };
}

export type ArchiveService = ReturnType<typeof createArchiveService>;
