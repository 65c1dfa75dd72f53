import type { BackupsRepository } from "../backups/backups.repository.ts";
import type { PostsRepository } from "../sync/posts.repository.ts";
import type { SyncRunsRepository } from "../sync/sync-runs.repository.ts";
import type { CursorListingRepository } from "./cursor-listing.repository.ts";
import type { ListingRepository } from "./listing.repository.ts";

/** What the read side reads: its listing queries, and the sync and backups areas' repositories. */
export interface LibraryRepositories {
  posts: PostsRepository;
  runs: SyncRunsRepository;
  backups: BackupsRepository;
  /** The posts grid and the Backups list. */
  listing: ListingRepository;
  /** The public API's keyset pages. */
  cursors: CursorListingRepository;
}
