import type { Db } from "../db/database.ts";
import type { BackupsForSync } from "./engine.types.ts";
import { createPostsRepository, type PostsRepository } from "./posts.repository.ts";
import { createSyncRunsRepository, type SyncRunsRepository } from "./sync-runs.repository.ts";

/**
 * The sync area's repositories, one per table group it owns. What it reads of other areas'
 * tables (accounts, users, Google connections) comes from their repositories (`SyncDirectory`);
 * what it asks of backups comes from the backups area (`BackupsForSync`, wired in context.ts).
 */
export interface SyncRepositories {
  posts: PostsRepository;
  /** sync_jobs and account_sync_state. */
  runs: SyncRunsRepository;
  backups: BackupsForSync;
}

export function createSyncRepositories(db: Db, backups: BackupsForSync): SyncRepositories {
  return {
    posts: createPostsRepository(db),
    runs: createSyncRunsRepository(db),
    backups,
  };
}
