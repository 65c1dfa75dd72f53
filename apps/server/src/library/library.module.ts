import type { FastifyInstance } from "fastify";
import type { ModuleBase } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import type { BackupsRepository } from "../backups/index.ts";
import type { ConnectionTokens } from "../connections/index.ts";
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
import { registerLibraryRoutes } from "./library.routes.ts";
import { listingQueries } from "./listing.repository.ts";
import {
  createPostLookupsRepository,
  type PostLookupsRepository,
} from "./post-lookups.repository.ts";

/** The library area: the read side of the dashboard, /backups and /api/v1. */
export interface LibraryModule {
  /** The posts grid, the Backups list, stats, the new-posts check, the caller's media. */
  dashboard: DashboardService;
  /** The public API's keyset pages of posts and backups. */
  listing: CursorListingService;
  repos: LibraryRepositories;
  /** The posts and backups the comments area looks up. */
  postLookups: PostLookupsRepository;
  routes(app: FastifyInstance, guards: AuthGuards): void;
}

export function createLibraryModule(
  deps: ModuleBase & {
    settings: EngineSettings;
    /** The sync area's posts, runs, Graph client and directory. */
    sync: {
      repos: { posts: PostsRepository; runs: SyncRunsRepository };
      media: MediaClient;
      directory: SyncDirectory;
    };
    /** The backups area's repository (its totals and lists). */
    backups: BackupsRepository;
    connections: { engineTokens: ConnectionTokens };
    /** The archive area: views, posts no longer on Instagram (issue 30). */
    archive?: LibraryArchive;
  },
): LibraryModule {
  const { sync } = deps;
  const repos: LibraryRepositories = {
    posts: sync.repos.posts,
    runs: sync.repos.runs,
    backups: deps.backups,
    listing: listingQueries(deps.db),
    cursors: cursorListingQueries(deps.db),
  };
  const dashboard = createDashboardService({
    ...(deps.archive ? { archive: deps.archive } : {}),
    repos,
    directory: sync.directory,
    connections: deps.connections.engineTokens,
    media: sync.media,
    clock: deps.clock,
    settings: deps.settings,
  });
  return {
    dashboard,
    listing: createCursorListingService({ repo: repos.cursors }),
    repos,
    postLookups: createPostLookupsRepository(deps.db),
    routes: (app, guards) => registerLibraryRoutes(app, { sync: { dashboard }, guards }),
  };
}
