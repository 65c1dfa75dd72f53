import type { BackupsRepository } from "../backups/index.ts";
import type { PostsRepository, SyncRunsRepository } from "../sync/index.ts";
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
