import { Readable } from "node:stream";
import {
  type Backup,
  type BackupsQueryParsed,
  type BackupsResponse,
  billingMessages,
  type DashboardStats,
  syncMessages as m,
  type NewPostsCheck,
  type Post,
  type PostMediaType,
  type PostsQueryParsed,
  type PostsResponse,
  type RetryBackupResponse,
  SEARCH_COUNT_MIN,
  type StartSyncResponse,
  type SyncJob,
  type SyncStatus,
} from "@keepsake/contracts";
import { hasAutomaticBackups, normalizeTier, postLimit } from "../billing/tier-rules.ts";
import type { BackupRow, GraphMediaType, PostRow, SyncJobRow } from "../db/sync-tables.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { MediaClient } from "../providers/instagram/media.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import { type EngineSettings, withBackoff } from "./backoff.ts";
import type { ConnectionTokens, SyncDirectory } from "./engine.types.ts";
import type { PostWithBackup } from "./listing.repository.ts";
import { minutesUntilNextSync } from "./schedule.ts";
import type { SyncRequest } from "./sync.engine.ts";
import type { SyncRepositories } from "./sync.repositories.ts";

export interface SyncServiceDeps {
  repos: Pick<SyncRepositories, "posts" | "backups" | "runs" | "listing">;
  directory: Pick<SyncDirectory, "userAccounts" | "userTier" | "findGoogleConnection">;
  connections: ConnectionTokens;
  media: MediaClient;
  clock: Clock;
  settings: EngineSettings;
  enqueueSync(req: SyncRequest): Promise<void>;
  enqueueBackups(postIds: string[]): Promise<void>;
}

/** Pages past the asked one that a caption search's count reaches. */
const SEARCH_PAGES_AHEAD = 4;

/** How many matches a caption search counts before it answers "at least this many". */
export const searchCountLimit = (offset: number, limit: number) =>
  Math.max(SEARCH_COUNT_MIN, offset + SEARCH_PAGES_AHEAD * limit);

/** The new-posts check reads an account's profile again when it is older than this. */
export const NEW_POSTS_PROFILE_MAX_AGE_MS = 5 * 60_000;

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

const TO_API_TYPE: Record<GraphMediaType, PostMediaType> = {
  IMAGE: "image",
  VIDEO: "video",
  CAROUSEL_ALBUM: "carousel",
};
export const FROM_API_TYPE: Record<PostMediaType, GraphMediaType> = {
  image: "IMAGE",
  video: "VIDEO",
  carousel: "CAROUSEL_ALBUM",
};

export function toSyncJob(j: SyncJobRow): SyncJob {
  return {
    id: j.id,
    account_id: j.account_id,
    job_type: j.job_type,
    mode: j.mode,
    status: j.status,
    posts_processed: j.posts_processed,
    posts_total: j.posts_total,
    error_message: j.error_message,
    started_at: iso(j.started_at) as string,
    completed_at: iso(j.completed_at),
  };
}

/**
 * The picture a tile shows: the post's thumbnail, else for an album the first image child, or
 * a video child's thumbnail (an album whose cover is a video has an .mp4 media_url and no
 * thumbnail of its own).
 */
export function coverImageUrl(p: Pick<PostRow, "media_type" | "thumbnail_url" | "children">) {
  if (p.thumbnail_url || p.media_type !== "CAROUSEL_ALBUM") return p.thumbnail_url;
  const children = Array.isArray(p.children) ? p.children : [];
  const image = children.find((c) => c.media_type === "IMAGE" && c.media_url);
  return image?.media_url ?? children.find((c) => c.thumbnail_url)?.thumbnail_url ?? null;
}

export function toPost(p: PostRow, backup: { status: BackupRow["status"] | null } | null): Post {
  const children = Array.isArray(p.children) ? p.children : [];
  return {
    id: p.id,
    account_id: p.account_id,
    instagram_id: p.instagram_id,
    media_type: TO_API_TYPE[p.media_type],
    media_product_type: p.media_product_type
      ? (p.media_product_type.toLowerCase() as Post["media_product_type"])
      : null,
    media_url: p.media_url ?? children[0]?.media_url ?? null,
    thumbnail_url: coverImageUrl(p),
    permalink: p.permalink,
    caption: p.caption,
    timestamp: iso(p.posted_at) as string,
    like_count: p.like_count,
    comments_count: p.comments_count,
    children_count: children.length,
    backup_status: backup?.status ?? null,
    is_backed_up: backup?.status === "completed",
    not_backed_up_reason: p.not_backed_up_reason,
  };
}

export function toBackup(b: BackupRow & { post: PostRow }): Backup {
  return {
    id: b.id,
    status: b.status,
    error_message: b.error_message,
    backup_size_bytes: b.backup_size_bytes === null ? null : Number(b.backup_size_bytes),
    created_at: iso(b.created_at) as string,
    updated_at: iso(b.updated_at) as string,
    completed_at: iso(b.completed_at),
    attempts: b.attempts,
    google_drive_file_id: b.google_drive_file_id,
    google_drive_url: b.google_drive_url,
    instagram_post_id: b.post_id,
    account_id: b.account_id,
    instagram_post: toPost(b.post, { status: b.status }),
  };
}

/** The rules behind /api/sync: every read and write is scoped to the caller. */
export function createSyncService(deps: SyncServiceDeps) {
  const { repos, directory, clock } = deps;

  const expireStale = () =>
    repos.runs.failStaleSyncJobs(
      new Date(clock.now().getTime() - deps.settings.staleSyncMs),
      clock.now(),
      m.syncFailed,
    );

  /** The accounts a sync would run on, after checking both connections (SPEC §5 messages). */
  async function syncTargets(userId: string, accountId?: string) {
    const accounts = await directory.userAccounts(userId);
    if (accounts.length === 0) throw new AppError("bad_request", m.instagramNotConnected);
    const google = await directory.findGoogleConnection(userId);
    if (!google) throw new AppError("bad_request", m.googleNotConnected);
    if (google.status === "needs_reconnection") {
      throw new AppError("bad_request", google.status_reason ?? m.googleReconnect);
    }
    const chosen = accountId ? accounts.filter((a) => a.id === accountId) : accounts;
    if (chosen.length === 0) throw new AppError("not_found", m.accountNotFound);
    const unpaused = chosen.filter((a) => !a.paused_by_plan);
    if (unpaused.length === 0) throw new AppError("forbidden", billingMessages.accountPaused);
    const usable = unpaused.filter((a) => a.status === "active");
    if (usable.length === 0) {
      const first = chosen[0] as (typeof chosen)[number];
      throw new AppError(
        "bad_request",
        first.status_reason ?? m.instagramReconnect(first.username),
      );
    }
    return usable;
  }

  async function start(
    userId: string,
    accountId: string | undefined,
    mode: "backup" | "refresh",
  ): Promise<StartSyncResponse> {
    return startOn(userId, await syncTargets(userId, accountId), mode);
  }

  async function startOn(
    userId: string,
    targets: { id: string }[],
    mode: "backup" | "refresh",
  ): Promise<StartSyncResponse> {
    await expireStale();
    const jobs: SyncJobRow[] = [];
    let alreadyRunning = false;
    for (const a of targets) {
      const inserted = await repos.runs.insertSyncJob({
        user_id: userId,
        account_id: a.id,
        job_type: "manual",
        mode,
        now: clock.now(),
      });
      if (!inserted) {
        const running = await repos.runs.runningSyncJob(a.id);
        if (running) {
          alreadyRunning = true;
          jobs.push(running);
          continue;
        }
        throw new AppError("conflict", "A sync just finished; please try again.");
      }
      await deps.enqueueSync({ accountId: a.id, syncJobId: inserted.id, kind: "manual", mode });
      jobs.push(inserted);
    }
    const out = jobs.map(toSyncJob);
    return {
      message: alreadyRunning
        ? m.syncAlreadyRunning
        : mode === "refresh"
          ? m.refreshStarted
          : m.syncStarted,
      already_running: alreadyRunning,
      sync_job: out[0] as SyncJob,
      sync_jobs: out,
    };
  }

  return {
    start: (userId: string, accountId?: string) => start(userId, accountId, "backup"),
    refreshPosts: (userId: string, accountId?: string) => start(userId, accountId, "refresh"),

    /**
     * After an Instagram account or Google Drive is connected (or reconnected), on any plan:
     * the first sync and its backups start at once for the given accounts (all when absent),
     * once both connections work. Answers the jobs started; nothing when a side is missing.
     */
    async startAfterConnect(userId: string, accountIds?: string[]): Promise<SyncJob[]> {
      const google = await directory.findGoogleConnection(userId);
      if (!google || google.status === "needs_reconnection") return [];
      const targets = (await directory.userAccounts(userId)).filter(
        (a) =>
          a.status === "active" && !a.paused_by_plan && (!accountIds || accountIds.includes(a.id)),
      );
      if (targets.length === 0) return [];
      return (await startOn(userId, targets, "backup")).sync_jobs;
    },

    async syncJobs(userId: string, limit: number): Promise<SyncJob[]> {
      await expireStale();
      return (await repos.runs.listSyncJobs(userId, limit)).map(toSyncJob);
    },

    async status(userId: string): Promise<SyncStatus> {
      await expireStale();
      const running = await repos.runs.latestRunningSyncJob(userId);
      if (running) return { is_syncing: true, sync_job: toSyncJob(running) };
      const [latest] = await repos.runs.listSyncJobs(userId, 1);
      return { is_syncing: false, sync_job: latest ? toSyncJob(latest) : null };
    },

    async posts(userId: string, q: PostsQueryParsed): Promise<PostsResponse> {
      const filter = {
        userId,
        accountId: q.account_id,
        mediaType: q.media_type ? FROM_API_TYPE[q.media_type] : undefined,
        search: q.search,
      };
      // A search counts its matches only so far: enough for the page buttons around this page.
      const counted = searchCountLimit(q.offset, q.limit);
      const [rows, total] = await Promise.all([
        repos.listing.postsPage(filter, q.limit, q.offset),
        repos.listing.countPosts(filter, counted + 1),
      ]);
      const exact = !filter.search || total <= counted;
      return {
        posts: rows.map((r: PostWithBackup) => toPost(r, { status: r.backup_status })),
        total: exact ? total : counted,
        total_exact: exact,
      };
    },

    async backups(userId: string, q: BackupsQueryParsed): Promise<BackupsResponse> {
      const status = q.status_filter && q.status_filter !== "all" ? q.status_filter : undefined;
      const filter = { status, accountId: q.account_id };
      const [rows, total] = await Promise.all([
        repos.listing.backupsPage(userId, filter, q.limit, q.offset),
        repos.listing.countBackups(userId, filter),
      ]);
      return { backups: rows.map(toBackup), total };
    },

    async stats(userId: string): Promise<DashboardStats> {
      const [s, tier, last, accounts, google] = await Promise.all([
        repos.backups.backupStats(userId),
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
      const next = auto
        ? active.map((a) => minutesUntilNextSync(a.id, clock.now())).sort((a, b) => a - b)[0]
        : undefined;
      return {
        total_posts: s.totalPosts,
        backed_up_posts: s.backedUp,
        pending_backups: s.pending,
        failed_backups: s.failed,
        posts_over_limit: s.overLimit,
        post_limit: postLimit(plan),
        total_storage_used: s.bytes,
        next_sync_in: next ?? null,
        last_sync: iso(last?.at ?? null),
      };
    },

    async retry(userId: string, postId: string): Promise<RetryBackupResponse> {
      const post = await repos.posts.findUserPost(userId, postId);
      if (!post) throw new AppError("not_found", m.backupNotFound);
      if (post.not_backed_up_reason) throw new AppError("bad_request", post.not_backed_up_reason);
      await repos.backups.ensureBackup(post, clock.now());
      const reset = await repos.backups.resetBackup(userId, postId, clock.now());
      if (!reset) {
        const current = await repos.backups.findBackupByPost(userId, postId);
        if (current?.status === "completed")
          throw new AppError("conflict", "This post is already backed up");
        throw new AppError("conflict", "This backup is running right now");
      }
      await deps.enqueueBackups([postId]);
      return { message: m.retryStarted, backup: toBackup({ ...reset, post }) };
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
      const unbacked = s.unbacked;
      let upgrade: string | null = null;
      if (plan === "free") {
        if (limit !== null && Math.max(onInstagram, s.totalPosts) > limit) {
          upgrade = `Your Free plan backs up your newest ${limit} posts. Upgrade to Premium to back up up to ${(postLimit("premium") ?? 0).toLocaleString("en-US")} posts automatically.`;
        } else if (newPosts > 0 || unbacked > 0) {
          upgrade = "Upgrade to Premium for automatic backups every 10 minutes.";
        }
      }
      return {
        has_new_posts: newPosts > 0 || unbacked > 0,
        new_posts_count: newPosts,
        unbacked_posts_count: unbacked,
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
          throw new AppError("conflict", m.instagramReconnect("your account"));
        }
        throw new AppError(
          "upstream",
          "Instagram is not responding right now. Please try again later.",
        );
      }
      if (!url) throw new AppError("not_found", m.mediaWithheld);
      let res: Response;
      try {
        res = await deps.media.download(url);
      } catch {
        throw new AppError(
          "upstream",
          "Instagram is not responding right now. Please try again later.",
        );
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

export type SyncService = ReturnType<typeof createSyncService>;
