import type { Db } from "../db/database.ts";
import { type BackupsRepository, createBackupsRepository } from "./backups.repository.ts";
import { type CursorListingRepository, cursorListingQueries } from "./cursor-listing.repository.ts";
import {
  createDriveFoldersRepository,
  type DriveFoldersRepository,
} from "./drive-folders.repository.ts";
import { type ListingRepository, listingQueries } from "./listing.repository.ts";
import { createPostsRepository, type PostsRepository } from "./posts.repository.ts";
import { createSyncRunsRepository, type SyncRunsRepository } from "./sync-runs.repository.ts";

/**
 * The sync area's repositories, one per table group it owns. What it reads of other areas'
 * tables (accounts, users, Google connections) comes from their repositories (`SyncDirectory`).
 */
export interface SyncRepositories {
  posts: PostsRepository;
  backups: BackupsRepository;
  /** sync_jobs and account_sync_state. */
  runs: SyncRunsRepository;
  folders: DriveFoldersRepository;
  /** The posts grid and the Backups list. */
  listing: ListingRepository;
  /** The public API's keyset pages. */
  cursors: CursorListingRepository;
}

export function createSyncRepositories(db: Db): SyncRepositories {
  return {
    posts: createPostsRepository(db),
    backups: createBackupsRepository(db),
    runs: createSyncRunsRepository(db),
    folders: createDriveFoldersRepository(db),
    listing: listingQueries(db),
    cursors: cursorListingQueries(db),
  };
}
