import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import { createDestinations, type Destinations } from "../destinations/module.ts";
import type { JobSender } from "../jobs/job.ts";
import type { Clock } from "../lib/clock.ts";
import { decryptSecret, encryptSecret } from "../lib/crypto.ts";
import type { FetchLike } from "../providers/http.ts";
import type { MediaClient } from "../providers/instagram/media.client.ts";
import type { ConnectionTokens, SyncDirectory } from "../sync/engine.types.ts";
import type { EngineSettings } from "../sync/engine-settings.ts";
import type { GraphPacer } from "../sync/graph-pacer.ts";
import type { PostsRepository } from "../sync/posts.repository.ts";
import type { SyncRunsRepository } from "../sync/sync-runs.repository.ts";
import { type BackupEngine, createBackupEngine } from "./backup.engine.ts";
import type { BackupsRepositories } from "./backups.repositories.ts";
import { type BackupsRepository, createBackupsRepository } from "./backups.repository.ts";
import { createDriveFoldersRepository } from "./drive-folders.repository.ts";
import { backupPostJob, backupSingletonKey } from "./jobs/backup-post.job.ts";
import type { FailedBackupEvent } from "./outcome.ts";

/** The backups area: writing posts into Drive, wired once. */
export interface BackupsModule {
  backupEngine: BackupEngine;
  repos: BackupsRepositories;
  /** The destinations (destinations/) the engine writes through; import and comments use them too. */
  destinations: Destinations;
}

/** The backups and backup_files tables' repository (sync asks it for claims and retries). */
export const backupsRepository = (db: Db): BackupsRepository => createBackupsRepository(db);

/** Queues one backup-post job per post id, 500 per insert (idempotent per post). */
export function backupEnqueuer(queue: JobSender) {
  return async (postIds: string[]) => {
    for (let i = 0; i < postIds.length; i += 500) {
      await queue.insert(
        backupPostJob,
        postIds
          .slice(i, i + 500)
          .map((postId) => ({ data: { postId }, singletonKey: backupSingletonKey(postId) })),
      );
    }
  };
}

/** Wires the destinations (Google Drive) and the backup engine. */
export function createBackupsModule(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  backups: BackupsRepository;
  /** The sync area's: posts to back up, runs to count in, the Graph client and its pacer. */
  posts: PostsRepository;
  runs: SyncRunsRepository;
  media: MediaClient;
  pacer: GraphPacer;
  connections: ConnectionTokens;
  directory: SyncDirectory;
  settings: EngineSettings;
  /** AES-256-GCM key: resumable upload session URIs are write capabilities, sealed at rest. */
  encryptionKey: Buffer;
  /** What the archive area adds to a post's sidecar (issue 30). */
  sidecarFields?: (accountId: string, instagramId: string) => Promise<Record<string, unknown>>;
  log?: { warn(obj: object, msg: string): void };
  fetchFor?: (provider: "instagram" | "google") => FetchLike;
  /** Told the outcome of each streamed Drive upload (`fetchFor` does not see them). */
  streamedFor?: (provider: "google") => (failed: boolean) => void;
  /** Told of every backup that ends failed (the notifications area's alerts). */
  onBackupFailed?: (failed: FailedBackupEvent) => Promise<void>;
}): BackupsModule {
  const repos: BackupsRepositories = {
    posts: deps.posts,
    runs: deps.runs,
    backups: deps.backups,
    folders: createDriveFoldersRepository(deps.db),
  };
  const destinations = createDestinations({
    apisUrl: `${deps.config.providers.google.apisUrl}`,
    connections: deps.connections,
    folders: repos.folders,
    settings: deps.settings,
    clock: deps.clock,
    ...(deps.fetchFor ? { fetch: deps.fetchFor("google") } : {}),
    ...(deps.streamedFor ? { recordStreamed: deps.streamedFor("google") } : {}),
  });
  const backupEngine = createBackupEngine({
    repos,
    directory: deps.directory,
    connections: deps.connections,
    media: deps.media,
    destination: destinations.googleDrive,
    pacer: deps.pacer,
    clock: deps.clock,
    settings: deps.settings,
    sessions: {
      seal: (uri) => encryptSecret(deps.encryptionKey, uri),
      open: (sealed) => decryptSecret(deps.encryptionKey, sealed),
    },
    ...(deps.sidecarFields ? { sidecarFields: deps.sidecarFields } : {}),
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.onBackupFailed ? { onFailed: deps.onBackupFailed } : {}),
  });
  return { backupEngine, repos, destinations };
}
