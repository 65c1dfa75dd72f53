import type { BackupsRepository } from "../backups/index.ts";
import type { ConnectionTokens } from "../connections/index.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import type { MediaClient } from "../providers/instagram/media.client.ts";
import type {
  EngineSettings,
  PostsRepository,
  SyncDirectory,
  SyncRunsRepository,
} from "../sync/index.ts";
import { cursorListingQueries } from "./cursor-listing.repository.ts";
import { type CursorListingService, createCursorListingService } from "./cursor-listing.service.ts";
import {
  createDashboardService,
  type DashboardService,
  type LibraryArchive,
} from "./dashboard.service.ts";
import type { LibraryRepositories } from "./library.repositories.ts";
import { listingQueries } from "./listing.repository.ts";

/** The library area: the read side of the dashboard, /backups and /api/v1. */
export interface LibraryModule {
  /** The posts grid, the Backups list, stats, the new-posts check, the caller's media. */
  dashboard: DashboardService;
  /** The public API's keyset pages of posts and backups. */
  listing: CursorListingService;
  repos: LibraryRepositories;
}

export function createLibraryModule(deps: {
  db: Db;
  clock: Clock;
  posts: PostsRepository;
  runs: SyncRunsRepository;
  backups: BackupsRepository;
  media: MediaClient;
  connections: ConnectionTokens;
  directory: SyncDirectory;
  settings: EngineSettings;
  /** The archive area: views, posts no longer on Instagram (issue 30). */
  archive?: LibraryArchive;
}): LibraryModule {
  const repos: LibraryRepositories = {
    posts: deps.posts,
    runs: deps.runs,
    backups: deps.backups,
    listing: listingQueries(deps.db),
    cursors: cursorListingQueries(deps.db),
  };
  const dashboard = createDashboardService({
    ...(deps.archive ? { archive: deps.archive } : {}),
    repos,
    directory: deps.directory,
    connections: deps.connections,
    media: deps.media,
    clock: deps.clock,
    settings: deps.settings,
  });
  return { dashboard, listing: createCursorListingService({ repo: repos.cursors }), repos };
}
