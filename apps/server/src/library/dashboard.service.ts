import { Readable } from "node:stream";
import {
  type BackupsQueryParsed,
  type BackupsResponse,
  type DashboardStats,
  syncMessages as m,
  type NewPostsCheck,
  type Post,
  type PostsQueryParsed,
  type PostsResponse,
  SEARCH_COUNT_MIN,
} from "@keepsake/contracts";
import { hasAutomaticBackups, normalizeTier, postLimit } from "../billing/index.ts";
import type { ConnectionTokens } from "../connections/index.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { notRespondingTryLater, reconnectWords } from "../providers/failure-words.ts";
import type { MediaClient } from "../providers/instagram/media.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import { withBackoff } from "../providers/retry.ts";
import {
  type EngineSettings,
  iso,
  minutesUntilNextSync,
  type SyncDirectory,
  toBackup,
  toPost,
} from "../sync/index.ts";
import type { LibraryRepositories } from "./library.repositories.ts";
import type { PostKey, PostWithBackup } from "./listing.repository.ts";
import { postFilter } from "./post-filter.ts";

/** What the grid and the Backups list ask of the archive area (issue 30). */
export interface LibraryArchive {
  goneKeys(userId: string, accountId?: string): Promise<PostKey[]>;
  postsState(keys: PostKey[]): Promise<
    Map<
      string,
      {
        like_count?: number | null;
        comments_count?: number | null;
        counted_at?: string | null;
        view_count: number | null;
        instagram_status: "on_instagram" | "gone";
        gone_detected_at: string | null;
        restore_until: string | null;
      }
    >
  >;
}

export interface DashboardServiceDeps {
  archive?: LibraryArchive;
  repos: Pick<LibraryRepositories, "posts" | "backups" | "runs" | "listing">;
  directory: Pick<SyncDirectory, "userAccounts" | "userTier" | "findGoogleConnection">;
  connections: Pick<ConnectionTokens, "refreshStaleProfiles" | "instagramAccessToken">;
  media: MediaClient;
  clock: Clock;
  settings: EngineSettings;
}

/** Pages past the asked one that a caption search's count reaches. */
const SEARCH_PAGES_AHEAD = 4;

/** How many matches a caption search counts before it answers "at least this many". */
export const searchCountLimit = (offset: number, limit: number) =>
  Math.max(SEARCH_COUNT_MIN, offset + SEARCH_PAGES_AHEAD * limit);

/** The new-posts check reads an account's profile again when it is older than this. */
export const NEW_POSTS_PROFILE_MAX_AGE_MS = 5 * 60_000;

/**
 * The read side of /api/sync: the posts grid, the Backups list, the dashboard's stats and
 * new-posts banner, and the caller's own media. Every read is scoped to the caller.
 */
export function createDashboardService(deps: DashboardServiceDeps) {
  const { repos, directory, clock } = deps;

  /** Only the posts no longer on Instagram, when the filter asks for them. */
  const goneOnly = async (
    userId: string,
    q: { instagram_status?: "gone" | undefined; account_id?: string | undefined },
  ) =>
    q.instagram_status === "gone" && deps.archive
      ? { only: await deps.archive.goneKeys(userId, q.account_id) }
      : {};

  /** Each post with what the archive knows of it (views, gone, restore date). */
  async function withArchive<T extends Post>(posts: T[]): Promise<T[]> {
    if (!deps.archive || posts.length === 0) return posts;
    const state = await deps.archive.postsState(
      posts.map((p) => ({ account_id: p.account_id, instagram_id: p.instagram_id })),
    );
    return posts.map((p) => ({ ...p, ...state.get(`${p.account_id}:${p.instagram_id}`) }));
  }

  return {
    async posts(userId: string, q: PostsQueryParsed): Promise<PostsResponse> {
      const filter = { ...postFilter(userId, q), ...(await goneOnly(userId, q)) };
      // A search counts its matches only so far: enough for the page buttons around this page.
      const counted = searchCountLimit(q.offset, q.limit);
      const { rows, total } = await repos.listing.postsPage(filter, q.limit, q.offset, counted + 1);
      const exact = !filter.search || total <= counted;
      return {
        posts: await withArchive(
          rows.map((r: PostWithBackup) => toPost(r, { status: r.backup_status })),
        ),
        total: exact ? total : counted,
        total_exact: exact,
      };
    },

    async backups(userId: string, q: BackupsQueryParsed): Promise<BackupsResponse> {
      const status = q.status_filter && q.status_filter !== "all" ? q.status_filter : undefined;
      const filter = { status, accountId: q.account_id, ...(await goneOnly(userId, q)) };
      const { rows, total } = await repos.listing.backupsPage(userId, filter, q.limit, q.offset);
      const backups = rows.map(toBackup);
      const posts = await withArchive(backups.map((b) => b.instagram_post));
      return { backups: backups.map((b, i) => ({ ...b, instagram_post: posts[i]! })), total };
    },

    /** The one definition of every count (issue 36); of one account when one is given. */
    async stats(userId: string, accountId?: string): Promise<DashboardStats> {
      const [s, tier, last, accounts, google] = await Promise.all([
        repos.backups.backupStats(userId, accountId),
        directory.userTier(userId),
        repos.runs.lastCompletedSync(userId),
        directory.userAccounts(userId),
        directory.findGoogleConnection(userId),
      ]);
      const plan = normalizeTier(tier);
      const auto = hasAutomaticBackups(plan);
      // No sync is coming while Drive is missing or refused: no countdown then.
      const driveUsable = google !== undefined && google.status !== "needs_reconnection";
      const active = driveUsable
        ? accounts.filter((a) => a.status === "active" && !a.paused_by_plan)
        : [];
      const usage = auto ? await repos.runs.graphUsage(active.map((a) => a.id)) : new Map();
      const next = auto
        ? active
            .map((a) => minutesUntilNextSync(a.id, clock.now(), usage.get(a.id)))
            .sort((a, b) => a - b)[0]
        : undefined;
      return {
        total_posts: s.totalPosts,
        backed_up_posts: s.backedUp,
        pending_backups: s.pending,
        failed_backups: s.failed,
        posts_over_limit: s.overLimit,
        unavailable_posts: s.unavailable,
        post_limit: postLimit(plan),
        total_storage_used: s.bytes,
        next_sync_in: next ?? null,
        last_sync: iso(last?.at ?? null),
        sync_progress: s.progress,
      };
    },

    async checkNewPosts(userId: string): Promise<NewPostsCheck> {
      // How many posts each account has now comes from its profile, read again when older
      // than a few minutes: the banner's "may be delayed by 5-15 minutes".
      const accounts = await deps.connections.refreshStaleProfiles(
        userId,
        NEW_POSTS_PROFILE_MAX_AGE_MS,
      );
      const [s, tier] = await Promise.all([
        repos.backups.backupStats(userId),
        directory.userTier(userId),
      ]);
      const plan = normalizeTier(tier);
      const known = s.feedPosts;
      const onInstagram = accounts.reduce((n, a) => n + a.media_count, 0);
      const newPosts = Math.max(0, onInstagram - known);
      const limit = postLimit(plan);
      // Not backed up yet: the dashboard's Pending and the failed ones, the same definition
      // (issue 36). Posts the plan leaves out are not "to back up": Backup Now cannot back
      // them up, only an upgrade can (the dashboard's header says how many there are).
      const unbacked = s.pending + s.failed;
      let upgrade: string | null = null;
      if (plan === "free") {
        if (s.overLimit === 0 && limit !== null && Math.max(onInstagram, s.totalPosts) > limit) {
          upgrade = `Your Free plan backs up your newest ${limit} posts. Upgrade to Premium to back up up to ${(postLimit("premium") ?? 0).toLocaleString("en-US")} posts automatically.`;
        } else if (newPosts > 0 || unbacked > 0 || s.overLimit > 0) {
          upgrade = "Upgrade to Premium for automatic backups every 10 minutes.";
        }
      }
      return {
        has_new_posts: newPosts > 0 || unbacked > 0,
        new_posts_count: newPosts,
        unbacked_posts_count: unbacked,
        failed_backups_count: s.failed,
        upgrade_message: upgrade,
      };
    },

    /**
     * A fresh copy of the caller's own media (the image fallback): the URL comes from Graph for
     * a post the caller owns, never from the request. Videos answer their thumbnail.
     */
    async media(userId: string, instagramId: string) {
      const post = await repos.posts.findUserPostByInstagramId(userId, instagramId);
      if (!post) throw new AppError("not_found", m.postNotFound);
      let ig: Awaited<ReturnType<ConnectionTokens["instagramAccessToken"]>>;
      try {
        ig = await deps.connections.instagramAccessToken(post.account_id);
      } catch {
        throw new AppError("not_found", m.postNotFound);
      }
      let url: string | null;
      try {
        const fresh = await withBackoff(
          () =>
            deps.media.media({
              host: ig.connectedVia,
              token: ig.token,
              mediaId: post.instagram_id,
              accountKey: ig.instagramUserId,
            }),
          { ...deps.settings, backoff: { ...deps.settings.backoff, attempts: 2 } },
        );
        url = fresh.mediaType === "VIDEO" ? (fresh.thumbnailUrl ?? fresh.mediaUrl) : fresh.mediaUrl;
      } catch (err) {
        if (err instanceof ProviderError && err.kind === "token_invalid") {
          throw new AppError("conflict", reconnectWords.instagram("your account"));
        }
        throw new AppError("upstream", notRespondingTryLater("Instagram"));
      }
      if (!url) throw new AppError("not_found", m.mediaWithheld);
      let res: Response;
      try {
        res = await deps.media.download(url);
      } catch {
        throw new AppError("upstream", notRespondingTryLater("Instagram"));
      }
      const body = res.body as ReadableStream<Uint8Array>;
      return {
        contentType: res.headers.get("content-type") ?? "application/octet-stream",
        contentLength: res.headers.get("content-length"),
        stream: Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>),
      };
    },
  };
}

export type DashboardService = ReturnType<typeof createDashboardService>;
