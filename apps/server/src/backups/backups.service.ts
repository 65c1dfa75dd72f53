import {
  syncMessages as m,
  type RetryBackupResponse,
  type RetryFailedResponse,
} from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { type PostsRepository, type SyncDirectory, toBackup } from "../sync/index.ts";
import type { BackupsRepository } from "./backups.repository.ts";

export interface BackupsServiceDeps {
  backups: Pick<
    BackupsRepository,
    "resetFailedBackups" | "ensureBackup" | "resetBackup" | "findBackupByPost"
  >;
  /** The sync area's posts (a retry needs the caller's post). */
  posts: Pick<PostsRepository, "findUserPost">;
  directory: Pick<SyncDirectory, "userAccounts">;
  clock: Clock;
  /** Queues one backup per post id (the backup-post job). */
  enqueueBackups(postIds: string[]): Promise<void>;
}

/**
 * Retries (SPEC §4: a failed backup can be retried, which restarts it): one backup, or every
 * failed backup of the user or of one of their accounts. Every write is scoped to the caller.
 */
export function createBackupsService(deps: BackupsServiceDeps) {
  const { clock, directory } = deps;
  const repos = { backups: deps.backups, posts: deps.posts };
  return {
    /** "Retry All Failed": every failed backup of the user (or of one of their accounts). */
    async retryFailed(userId: string, accountId?: string): Promise<RetryFailedResponse> {
      if (accountId && !(await directory.userAccounts(userId)).some((a) => a.id === accountId))
        throw new AppError("not_found", m.accountNotFound);
      const postIds = await repos.backups.resetFailedBackups(userId, accountId, clock.now());
      if (postIds.length > 0) await deps.enqueueBackups(postIds);
      return {
        message: postIds.length === 0 ? m.noFailedBackups : m.retryAllStarted(postIds.length),
        retried: postIds.length,
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
        if (current?.status === "unavailable") throw new AppError("conflict", m.mediaUnavailable);
        throw new AppError("conflict", "This backup is running right now");
      }
      await deps.enqueueBackups([postId]);
      return { message: m.retryStarted, backup: toBackup({ ...reset, post }) };
    },
  };
}

export type BackupsService = ReturnType<typeof createBackupsService>;
