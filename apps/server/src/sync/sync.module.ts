import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase, type ProviderCalls } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import type { BillingModule } from "../billing/index.ts";
import type {
  ConnectionsModule,
  ConnectionsRepository,
  ConnectionTokens,
} from "../connections/index.ts";
import type { JobSender } from "../jobs/job.ts";
import { createMediaClient, type MediaClient } from "../providers/instagram/media.client.ts";
import {
  type AccountsRepository,
  createAccountsRepository,
} from "./account-directory.repository.ts";
import type { BackupsForSync, SyncArchive, SyncDirectory } from "./engine.types.ts";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "./engine-settings.ts";
import { createGraphPacer, type GraphPacer } from "./graph-pacer.ts";
import { syncAccountJob } from "./jobs/sync-account.job.ts";
import { secondsUntilSlotThisInterval } from "./schedule.ts";
import { createSyncEngine, type SyncEngine } from "./sync.engine.ts";
import { createSyncRepositories, type SyncRepositories } from "./sync.repositories.ts";
import { registerSyncRoutes } from "./sync.routes.ts";
import { createSyncRunsService, type SyncRunsService } from "./sync-runs.service.ts";

export type { EngineSettings };

/** The sync area: reading Instagram (runs, posts, the pacer), wired once. */
export interface SyncModule {
  /** /api/sync's runs: starts syncs and retries, reports what is running. */
  runs: SyncRunsService;
  /** The sync area's repositories (posts, runs) and what it asks of backups. */
  repos: SyncRepositories;
  syncEngine: SyncEngine;
  engine: EngineSettings;
  /** The Graph media client and its pacer, shared with the backups and library areas. */
  media: MediaClient;
  pacer: GraphPacer;
  /** The accounts' rows as the scheduler reads them (with the owner and the sync state). */
  accountsRepo: AccountsRepository;
  /** What the sync and backup engines read of the accounts and connections. */
  directory: SyncDirectory;
  routes(app: FastifyInstance, guards: AuthGuards): void;
}

/** Engine settings over their defaults (tests shrink waits, the benchmark sets chunk sizes). */
export function engineSettings(partial?: Partial<EngineSettings>): EngineSettings {
  return {
    ...DEFAULT_ENGINE_SETTINGS,
    ...partial,
    backoff: { ...DEFAULT_ENGINE_SETTINGS.backoff, ...partial?.backoff },
  };
}

/** Wires the Instagram client, the sync engine and the runs service. */
export function createSyncModule(
  deps: ModuleBase & {
    calls: Pick<ProviderCalls, "fetchFor">;
    queue: JobSender;
    settings: EngineSettings;
    /** The connections area: tokens, the plan and accounts it keeps, what it reports. */
    connections: {
      engineTokens: ConnectionTokens;
      repo: Pick<
        ConnectionsRepository,
        "userAccounts" | "userTier" | "findGoogleConnection" | "destinationState"
      >;
      events: Pick<
        ConnectionsModule["events"],
        "connected" | "disconnected" | "destinationConnected"
      >;
    };
    /** The billing area's plan changes. */
    billing: { events: Pick<BillingModule["events"], "postLimitChanged" | "planChanged"> };
    /** What sync asks of the backups area (claims, retries), handed in by the root. */
    backups: BackupsForSync;
    /** Queues one backup per post id (the backups area's job; idempotent per post). */
    enqueueBackups(postIds: string[]): Promise<void>;
    /** The archive area (issue 30): each media page read, and each whole walk of the list. */
    archive?: SyncArchive;
  },
): SyncModule {
  const { settings } = deps;
  const providers = deps.config.providers;
  const pacer = createGraphPacer(settings, () => deps.clock.now().getTime());
  const media = createMediaClient(
    {
      instagramGraphUrl: providers.instagram.graphUrl,
      facebookGraphUrl: providers.facebook.graphUrl,
      graphVersion: providers.graphVersion,
    },
    { onUsage: (key, usage) => pacer.record(key, usage), fetch: deps.calls.fetchFor("instagram") },
  );
  const repos = createSyncRepositories(deps.db, deps.backups);
  const accountsRepo = createAccountsRepository(deps.db);
  const connectionsRepo = deps.connections.repo;
  const directory: SyncDirectory = {
    accountWithOwner: accountsRepo.accountWithOwner,
    accountForSync: accountsRepo.accountForSync,
    userAccounts: connectionsRepo.userAccounts,
    userTier: connectionsRepo.userTier,
    findGoogleConnection: connectionsRepo.findGoogleConnection,
    destinationState: connectionsRepo.destinationState,
  };
  const { enqueueBackups } = deps;
  const connections = deps.connections.engineTokens;

  const syncEngine = createSyncEngine({
    repos,
    directory,
    connections,
    media,
    pacer,
    clock: deps.clock,
    settings,
    enqueueBackups,
    ...(deps.archive ? { archive: deps.archive } : {}),
    ...logOf(deps),
  });
  const runs = createSyncRunsService({
    repos,
    directory,
    clock: deps.clock,
    settings,
    async enqueueScheduledThisInterval(accountId) {
      const startAfter = secondsUntilSlotThisInterval(accountId, deps.clock.now());
      if (startAfter === null) return;
      // The key the scheduler uses: the tick's own send finds it waiting and drops a second.
      await deps.queue.send(
        syncAccountJob,
        { accountId, kind: "scheduled", mode: "backup" },
        { singletonKey: `sync:${accountId}:scheduled`, startAfter },
      );
    },
    async enqueueSync(req) {
      await deps.queue.send(
        syncAccountJob,
        { accountId: req.accountId, kind: req.kind, mode: req.mode, syncJobId: req.syncJobId },
        { singletonKey: `sync:${req.accountId}:${req.syncJobId}` },
      );
    },
  });
  // Connecting starts the first sync at once, on every plan; a disconnected account's running
  // syncs end; a plan change applies its post limit and starts what it unlocks.
  deps.connections.events.connected.on((userId, accountIds) =>
    runs.startAfterConnect(userId, accountIds),
  );
  // Dropbox, OneDrive or S3 storage connected (or reconnected): the accounts backed up there
  // start their waiting backups, as connecting Google Drive does.
  deps.connections.events.destinationConnected.on((userId, kind) =>
    runs.startAfterConnect(userId, undefined, kind),
  );
  deps.connections.events.disconnected.on((userId) => runs.endRunsOfDisconnectedAccounts(userId));
  deps.billing.events.postLimitChanged.on((userId, tier) => runs.applyPostLimit(userId, tier));
  deps.billing.events.planChanged.on(async (userId, tier) => {
    await runs.startAfterPlanChange(userId, tier);
  });
  return {
    runs,
    repos,
    syncEngine,
    engine: settings,
    media,
    pacer,
    accountsRepo,
    directory,
    routes: (app, guards) => registerSyncRoutes(app, { sync: { runs }, guards }),
  };
}
