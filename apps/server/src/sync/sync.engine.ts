import { billingMessages, syncMessages as m } from "@keepsake/contracts";
import { postLimit, tierLabel } from "../billing/index.ts";
import type { ConnectionTokens } from "../connections/index.ts";
import type { Clock } from "../lib/clock.ts";
import { asError } from "../lib/log.ts";
import { reconnectWords, syncFailureWords } from "../providers/failure-words.ts";
import type { GraphMedia, MediaClient } from "../providers/instagram/media.client.ts";
import { isInstagramTokenInvalid, isRetryable } from "../providers/provider-error.ts";
import { DeferError } from "../providers/retry.ts";
import {
  type AttemptInfo,
  type EngineLog,
  type SyncArchive,
  type SyncDirectory,
  toPostChild,
} from "./engine.types.ts";
import type { EngineSettings } from "./engine-settings.ts";
import type { GraphPacer } from "./graph-pacer.ts";
import type { PostLimit, PostUpsert } from "./posts.repository.ts";
import { isStoriesRefusal } from "./stories-access.ts";
import type { SyncRepositories } from "./sync.repositories.ts";
import type { SyncPass } from "./sync-runs.repository.ts";
import type { SyncJobRow } from "./tables.ts";

export interface SyncEngineDeps {
  repos: Pick<SyncRepositories, "posts" | "backups" | "runs">;
  directory: Pick<SyncDirectory, "accountForSync">;
  connections: Pick<ConnectionTokens, "openInstagramToken" | "markInstagramNeedsReconnection">;
  media: MediaClient;
  pacer: GraphPacer;
  clock: Clock;
  settings: EngineSettings;
  /** Queues one backup per post id (idempotent per post). */
  enqueueBackups(postIds: string[]): Promise<void>;
  /** The archive area: counters of every page read, and the walks that find deleted posts. */
  archive?: SyncArchive;
  log?: EngineLog;
}

export interface SyncRequest {
  accountId: string;
  /** The sync_jobs row: created by the API for manual runs, by the job itself when scheduled. */
  syncJobId: string;
  kind: "manual" | "scheduled";
  mode: "backup" | "refresh";
}

export type SyncOutcome =
  | { outcome: "done"; job: SyncJobRow }
  | { outcome: "skipped" }
  | { outcome: "retry"; error: unknown }
  | { outcome: "deferred"; delayMs: number };

function toUpsert(userId: string, accountId: string, g: GraphMedia): PostUpsert {
  return {
    user_id: userId,
    account_id: accountId,
    instagram_id: g.id,
    media_type: g.mediaType,
    media_product_type: g.productType,
    caption: g.caption,
    posted_at: g.timestamp,
    like_count: g.likeCount,
    comments_count: g.commentsCount,
    permalink: g.permalink,
    shortcode: g.shortcode,
    media_url: g.mediaUrl,
    thumbnail_url: g.thumbnailUrl,
    children: g.children.map(toPostChild),
  };
}

/**
 * One sync of one account: lists media newest first (the whole history the first time, else
 * until a run of known posts), upserts posts, applies the plan's post limit, reads stories,
 * and queues a backup for every post not yet backed up.
 */
export function createSyncEngine(deps: SyncEngineDeps) {
  const { repos, directory, connections, media, pacer, clock, settings: s } = deps;

  /**
   * The sync_jobs row of a scheduled run: the queue job's id is the run's id, so a retry
   * continues the same row. A first attempt costs one insert. Only when it is refused does the
   * run look further: its own row (a retry), else the account's running run, which is failed
   * when its worker died (no heartbeat for staleSyncMs) so this run can start.
   */
  async function startScheduledRun(
    req: SyncRequest,
    account: { id: string; user_id: string },
  ): Promise<SyncJobRow | undefined> {
    const insert = () =>
      repos.runs.insertSyncJob({
        id: req.syncJobId,
        user_id: account.user_id,
        account_id: account.id,
        job_type: "scheduled_sync",
        mode: req.mode,
        now: clock.now(),
      });
    const started = (await insert()) ?? (await repos.runs.findSyncJob(req.syncJobId));
    if (started) return started;
    const staleBefore = new Date(clock.now().getTime() - s.staleSyncMs);
    const failed = await repos.runs.failStaleSyncJobs(
      staleBefore,
      clock.now(),
      m.syncFailed,
      account.id,
    );
    return failed > 0 ? insert() : undefined;
  }

  async function run(req: SyncRequest, attempt: AttemptInfo) {
    const account = await directory.accountForSync(req.accountId);
    if (!account) {
      const job = await repos.runs.findSyncJob(req.syncJobId);
      if (job)
        await repos.runs.finishSyncJob(job.id, "cancelled", clock.now(), m.accountDisconnected);
      return { outcome: "skipped" } satisfies SyncOutcome;
    }
    const job =
      req.kind === "manual"
        ? await repos.runs.findSyncJob(req.syncJobId)
        : await startScheduledRun(req, account);
    if (job?.status !== "running") return { outcome: "skipped" } satisfies SyncOutcome;
    const jobId = job.id;
    if (account.paused_by_plan) {
      const done = await repos.runs.finishSyncJob(
        jobId,
        "cancelled",
        clock.now(),
        billingMessages.accountPaused,
      );
      return { outcome: "done", job: done ?? job } satisfies SyncOutcome;
    }
    if (account.status === "needs_reconnection") {
      const done = await repos.runs.finishSyncJob(
        jobId,
        "failed",
        clock.now(),
        reconnectWords.instagram(account.username),
      );
      return { outcome: "done", job: done ?? job } satisfies SyncOutcome;
    }

    try {
      const ig = connections.openInstagramToken(account);
      const graph = <T>(fn: () => Promise<T>) => pacer.call(ig.instagramUserId, fn);
      // The stories are read while the media pages are: an unchanged account then costs one
      // round trip of Graph latency, not two. (A failure surfaces where they are awaited.)
      // Through Instagram Login the stories edge may be refused (PROVIDERS.md): the posts are
      // backed up all the same and the account is marked "stories need Facebook Login".
      let storiesRefused: boolean | undefined;
      const storiesCall = graph(() =>
        media.stories({ host: ig.connectedVia, token: ig.token, igUserId: ig.instagramUserId }),
      ).then(
        (list) => {
          storiesRefused = ig.connectedVia === "instagram" ? false : undefined;
          return list;
        },
        (err: unknown) => {
          if (ig.connectedVia !== "instagram" || !isStoriesRefusal(err)) throw err;
          storiesRefused = true;
          return [];
        },
      );
      storiesCall.catch(() => {});
      const historyComplete = account.history_complete_at !== null;
      // A whole walk of the list (issue 30): the first sync's, and when the archive asks for one
      // (weekly, after media_count dropped, or to confirm a post a walk missed), which it says
      // with the first page.
      let walking = !historyComplete;
      const walkStartedAt = clock.now();
      let walkSeen = 0;
      let oldestSeen: Date | null = null;
      let next: string | null = null;
      let knownRun = 0;
      let seen = 0;
      let reachedEnd = false;
      for (let first = true; ; first = false) {
        const page = await graph(() =>
          media.mediaPage({
            host: ig.connectedVia,
            token: ig.token,
            igUserId: ig.instagramUserId,
            limit: s.pageSize,
            next,
          }),
        );
        // The stories are saved with the first page: one write for both.
        const stories = first
          ? (await storiesCall).map((g) => ({ ...g, productType: "STORY" as const }))
          : [];
        const known = await repos.posts.savePosts(
          account.id,
          [...page.media, ...stories].map((g) => toUpsert(account.user_id, account.id, g)),
          clock.now(),
        );
        for (const p of page.media) knownRun = known.has(p.id) ? knownRun + 1 : 0;
        if (deps.archive) {
          const recorded = await deps.archive.recordPage(
            account,
            page.media,
            first && historyComplete
              ? { decide: true, usagePercent: pacer.latestPercent(ig.instagramUserId) }
              : walking,
          );
          if (first && historyComplete) walking = recorded.walk !== null;
          for (const p of page.media) {
            if (p.productType === "STORY") continue;
            walkSeen++;
            if (!oldestSeen || p.timestamp < oldestSeen) oldestSeen = p.timestamp;
          }
        }
        // A long first sync shows it is alive (the first page follows the start closely).
        if (!first) await repos.runs.updateSyncJob(jobId, { heartbeat_at: clock.now() });
        seen += page.media.length + stories.length;
        if (!page.next) {
          reachedEnd = true;
          break;
        }
        if (historyComplete && !walking && knownRun >= s.knownRunToStop) break;
        next = page.next;
      }

      if (deps.archive && walking && reachedEnd) {
        await deps.archive.finishWalk(account, {
          startedAt: walkStartedAt,
          seen: walkSeen,
          oldestSeen,
          probe: (mediaId) =>
            graph(() =>
              media.media({
                host: ig.connectedVia,
                token: ig.token,
                mediaId,
                accountKey: ig.instagramUserId,
              }),
            ),
        });
      }

      const tier = account.subscription_tier;
      const limit = postLimit(tier);
      const plan: PostLimit = {
        limit,
        reason: limit === null ? null : m.postLimit(limit, tierLabel(tier)),
      };
      // The account's sync is recorded with the run's next write (one statement for both).
      const synced: SyncPass = {
        accountId: account.id,
        now: clock.now(),
        historyComplete: reachedEnd,
        graphUsagePercent: pacer.latestPercent(ig.instagramUserId),
        ...(storiesRefused === undefined ? {} : { storiesRefused }),
      };

      // A refresh saves posts and queues no backup: the run ends with what it listed. A backup
      // claims what is due under the plan's post limit, which the claim applies first.
      const due =
        req.mode === "refresh"
          ? await repos.posts.applyPostLimit(account.user_id, plan).then(() => [])
          : await repos.backups.claimBackupsForSync(
              account.id,
              account.user_id,
              jobId,
              clock.now(),
              plan,
            );
      if (due.length === 0) {
        const listed = req.mode === "refresh" ? seen : 0;
        const counts = { posts_total: listed, posts_processed: listed };
        const finished = await repos.runs.finishSyncJob(
          jobId,
          "completed",
          clock.now(),
          null,
          counts,
          synced,
        );
        return { outcome: "done", job: finished ?? job } satisfies SyncOutcome;
      }
      // The run's counts follow from its backups (the claim attached them): a backup that
      // ended meanwhile (queued before, by a retry) is counted, not reset to zero.
      const updated = await repos.runs.settleSyncRun(jobId, clock.now(), synced);
      await deps.enqueueBackups(due.map((d) => d.post_id));
      return { outcome: "done", job: updated ?? job } satisfies SyncOutcome;
    } catch (err) {
      if (err instanceof DeferError) {
        await repos.runs.updateSyncJob(jobId, { heartbeat_at: clock.now() });
        return { outcome: "deferred", delayMs: err.delayMs } satisfies SyncOutcome;
      }
      if (isInstagramTokenInvalid(err)) {
        const message = reconnectWords.instagram(account.username);
        await connections.markInstagramNeedsReconnection(account.id, message);
        const done = await repos.runs.finishSyncJob(jobId, "failed", clock.now(), message);
        return { outcome: "done", job: done ?? job } satisfies SyncOutcome;
      }
      if (isRetryable(err) && attempt.retryCount < attempt.retryLimit) {
        await repos.runs.updateSyncJob(jobId, { heartbeat_at: clock.now() });
        return { outcome: "retry", error: err } satisfies SyncOutcome;
      }
      deps.log?.warn({ accountId: account.id, err: asError(err) }, "sync failed");
      const done = await repos.runs.finishSyncJob(
        jobId,
        "failed",
        clock.now(),
        syncFailureWords(err) ?? m.syncFailed,
      );
      return { outcome: "done", job: done ?? job } satisfies SyncOutcome;
    }
  }

  return { run };
}

export type SyncEngine = ReturnType<typeof createSyncEngine>;
