import type { Config } from "../config.ts";
import type { ConnectionTokens } from "../connections/index.ts";
import type { Db } from "../db/database.ts";
import type { JobSender } from "../jobs/job.ts";
import type { Clock } from "../lib/clock.ts";
import type { FetchLike } from "../providers/http.ts";
import { createMediaClient, type MediaClient } from "../providers/instagram/media.client.ts";
import type { BackupsForSync, SyncArchive, SyncDirectory } from "./engine.types.ts";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "./engine-settings.ts";
import { createGraphPacer, type GraphPacer } from "./graph-pacer.ts";
import { syncAccountJob } from "./jobs/sync-account.job.ts";
import { secondsUntilSlotThisInterval } from "./schedule.ts";
import { createSyncEngine, type SyncEngine } from "./sync.engine.ts";
import { createSyncRepositories, type SyncRepositories } from "./sync.repositories.ts";
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
export function createSyncModule(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  connections: ConnectionTokens;
  /** What the sync area reads of the accounts and connections areas' tables. */
  directory: SyncDirectory;
  queue: JobSender;
  settings: EngineSettings;
  /** What sync asks of the backups area (claims, retries). */
  backups: BackupsForSync;
  /** Queues one backup per post id (the backups area's job; idempotent per post). */
  enqueueBackups(postIds: string[]): Promise<void>;
  /** The archive area (issue 30): each media page read, and each whole walk of the list. */
  archive?: SyncArchive;
  log?: { warn(obj: object, msg: string): void };
  /** The `fetch` each provider's calls go through (the status page counts them). */
  fetchFor?: (provider: "instagram" | "google") => FetchLike;
}): SyncModule {
  const { settings } = deps;
  const providers = deps.config.providers;
  const pacer = createGraphPacer(settings, () => deps.clock.now().getTime());
  const media = createMediaClient(
    {
      instagramGraphUrl: providers.instagram.graphUrl,
      facebookGraphUrl: providers.facebook.graphUrl,
      graphVersion: providers.graphVersion,
    },
    {
      onUsage: (key, usage) => pacer.record(key, usage),
      ...(deps.fetchFor ? { fetch: deps.fetchFor("instagram") } : {}),
    },
  );
  const repos = createSyncRepositories(deps.db, deps.backups);
  const { directory, enqueueBackups } = deps;

  const syncEngine = createSyncEngine({
    repos,
    directory,
    connections: deps.connections,
    media,
    pacer,
    clock: deps.clock,
    settings,
    enqueueBackups,
    ...(deps.archive ? { archive: deps.archive } : {}),
    ...(deps.log ? { log: deps.log } : {}),
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
  return { runs, repos, syncEngine, engine: settings, media, pacer };
}
