import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { JobSender } from "../jobs/job.ts";
import type { Clock } from "../lib/clock.ts";
import { decryptSecret, encryptSecret } from "../lib/crypto.ts";
import { createDriveClient } from "../providers/google/drive.client.ts";
import type { FetchLike } from "../providers/http.ts";
import { createMediaClient } from "../providers/instagram/media.client.ts";
import { type BackupEngine, createBackupEngine } from "./backup/backup.engine.ts";
import { createDashboardService, type DashboardService } from "./dashboard.service.ts";
import type { ConnectionTokens, SyncDirectory } from "./engine.types.ts";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "./engine-settings.ts";
import { createGraphPacer, type GraphPacer } from "./graph-pacer.ts";
import { backupPostJob, backupSingletonKey } from "./jobs/backup-post.job.ts";
import { syncAccountJob } from "./jobs/sync-account.job.ts";
import { secondsUntilSlotThisInterval } from "./schedule.ts";
import { createSyncEngine, type SyncEngine } from "./sync.engine.ts";
import { createSyncRepositories, type SyncRepositories } from "./sync.repositories.ts";
import { createSyncRunsService, type SyncRunsService } from "./sync-runs.service.ts";

export type { EngineSettings };

/** What the backup engine adds to the application context. */
export interface SyncModule {
  /** /api/sync: `runs` starts syncs and retries, `dashboard` reads posts, backups, stats. */
  sync: { runs: SyncRunsService; dashboard: DashboardService };
  /** The sync area's repositories (posts, backups, runs, folders, listings). */
  syncRepos: SyncRepositories;
  syncEngine: SyncEngine;
  backupEngine: BackupEngine;
  engine: EngineSettings;
  /** Paces Graph calls per account: other areas' reads (comments) share the budget. */
  graphPacer: GraphPacer;
}

/** Wires the provider clients, engines and API service of the backup pipeline. */
export function createSyncModule(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  connections: ConnectionTokens;
  /** What the sync area reads of the accounts and connections areas' tables. */
  directory: SyncDirectory;
  queue: JobSender;
  settings?: Partial<EngineSettings>;
  /** AES-256-GCM key: resumable upload session URIs are write capabilities, sealed at rest. */
  encryptionKey: Buffer;
  log?: { warn(obj: object, msg: string): void };
  /** The `fetch` each provider's calls go through (the status page counts them). */
  fetchFor?: (provider: "instagram" | "google") => FetchLike;
}): SyncModule {
  const settings: EngineSettings = {
    ...DEFAULT_ENGINE_SETTINGS,
    ...deps.settings,
    backoff: { ...DEFAULT_ENGINE_SETTINGS.backoff, ...deps.settings?.backoff },
  };
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
  const drive = createDriveClient(
    { apisUrl: `${providers.google.apisUrl}` },
    deps.fetchFor ? { fetch: deps.fetchFor("google") } : {},
  );
  const repos = createSyncRepositories(deps.db);
  const { directory } = deps;

  const enqueueBackups = async (postIds: string[]) => {
    for (let i = 0; i < postIds.length; i += 500) {
      await deps.queue.insert(
        backupPostJob,
        postIds
          .slice(i, i + 500)
          .map((postId) => ({ data: { postId }, singletonKey: backupSingletonKey(postId) })),
      );
    }
  };

  const backupEngine = createBackupEngine({
    repos,
    directory,
    connections: deps.connections,
    media,
    drive,
    pacer,
    clock: deps.clock,
    settings,
    sessions: {
      seal: (uri) => encryptSecret(deps.encryptionKey, uri),
      open: (sealed) => decryptSecret(deps.encryptionKey, sealed),
    },
    ...(deps.log ? { log: deps.log } : {}),
  });
  const syncEngine = createSyncEngine({
    repos,
    directory,
    connections: deps.connections,
    media,
    pacer,
    clock: deps.clock,
    settings,
    enqueueBackups,
    ...(deps.log ? { log: deps.log } : {}),
  });
  const runs = createSyncRunsService({
    repos,
    directory,
    clock: deps.clock,
    settings,
    enqueueBackups,
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
  const dashboard = createDashboardService({
    repos,
    directory,
    connections: deps.connections,
    media,
    clock: deps.clock,
    settings,
  });
  return {
    sync: { runs, dashboard },
    syncRepos: repos,
    syncEngine,
    backupEngine,
    engine: settings,
    graphPacer: pacer,
  };
}
