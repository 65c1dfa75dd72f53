import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase, type ProviderCalls } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import { s3PublicOnly } from "../config.ts";
import type { AccountChosen, ConnectionTokens } from "../connections/index.ts";
import type { Db } from "../db/database.ts";
import {
  createDestinations,
  type DestinationCredentials,
  type Destinations,
  otherDestinations,
} from "../destinations/index.ts";
import type { JobSender } from "../jobs/job.ts";
import { decryptSecret, encryptSecret } from "../lib/crypto.ts";
import { createHook, type Listen } from "../lib/hooks.ts";
import type { Secrets } from "../lib/secrets.ts";
import type { MediaClient } from "../providers/instagram/media.client.ts";
import type {
  EngineSettings,
  GraphPacer,
  PostsRepository,
  SyncDirectory,
  SyncRunsRepository,
  SyncRunsService,
} from "../sync/index.ts";
import { type BackupEngine, createBackupEngine } from "./backup.engine.ts";
import type { BackupsRepositories } from "./backups.repositories.ts";
import { type BackupsRepository, createBackupsRepository } from "./backups.repository.ts";
import { registerBackupsRoutes } from "./backups.routes.ts";
import { type BackupsService, createBackupsService } from "./backups.service.ts";
import { copyIntoChosenAccount } from "./destination-owner.ts";
import { createDestinationSwitch } from "./destination-switch.ts";
import { createDriveFoldersRepository } from "./drive-folders.repository.ts";
import { backupPostJob, backupSingletonKey } from "./jobs/backup-post.job.ts";
import type { FailedBackupEvent } from "./outcome.ts";

/** The backups area: writing posts into Drive, wired once. */
export interface BackupsModule {
  backupEngine: BackupEngine;
  repos: BackupsRepositories;
  /** The destinations (destinations/) the engine writes through; import and comments use them too. */
  destinations: Destinations;
  /** Retries of one backup or of every failed one. */
  service: BackupsService;
  /** What areas built later are told: a backup that ended failed (listeners must not throw). */
  events: { failed: Listen<[failed: FailedBackupEvent]> };
  routes(app: FastifyInstance, guards: AuthGuards): void;
}

/**
 * The backups area's first step, built before the sync area: its repository (which sync asks
 * for claims) and the queueing of backups (which sync hands the claimed posts to).
 */
export interface BackupsStore {
  repo: BackupsRepository;
  enqueue(postIds: string[]): Promise<void>;
}

export function createBackupsStore(deps: { db: Db; queue: JobSender }): BackupsStore {
  return { repo: backupsRepository(deps.db), enqueue: backupEnqueuer(deps.queue) };
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

/** The backups area's second step, after the sync area: the Drive client and the engine. */
export function createBackupsModule(
  deps: ModuleBase & {
    secrets: Pick<Secrets, "encryptionKey">;
    calls: ProviderCalls;
    settings: EngineSettings;
    store: BackupsStore;
    /** The sync area's: posts to back up, runs to count in, the Graph client and its pacer. */
    sync: {
      repos: { posts: PostsRepository; runs: SyncRunsRepository };
      media: MediaClient;
      pacer: GraphPacer;
      directory: SyncDirectory;
      /** Starts the copy after an account switched destination, as after connecting. */
      runs: Pick<SyncRunsService, "startAfterConnect">;
    };
    connections: {
      engineTokens: ConnectionTokens;
      /** The Dropbox, OneDrive and S3 credentials the user connected (sealed by connections/). */
      destinations: { custody: DestinationCredentials };
      /** Which account of a destination is connected, told inside the connecting transaction. */
      events: { accountChosen: Listen<Parameters<AccountChosen>> };
    };
    /** What the archive area adds to a post's sidecar (issue 30). */
    sidecarFields?: (accountId: string, instagramId: string) => Promise<Record<string, unknown>>;
  },
): BackupsModule {
  const { sync, store } = deps;
  const repos: BackupsRepositories = {
    posts: sync.repos.posts,
    runs: sync.repos.runs,
    backups: store.repo,
    folders: createDriveFoldersRepository(deps.db),
  };
  const failed = createHook<[FailedBackupEvent]>();
  // AES-256-GCM: resumable upload session URIs are write capabilities, sealed at rest.
  const key = deps.secrets.encryptionKey;
  const destinations = createDestinations({
    apisUrl: `${deps.config.providers.google.apisUrl}`,
    connections: deps.connections.engineTokens,
    folders: repos.folders,
    settings: deps.settings,
    clock: deps.clock,
    fetch: deps.calls.fetchFor("google"),
    recordStreamed: deps.calls.streamedFor("google"),
    others: otherDestinations({
      providers: deps.config.providers,
      s3PublicOnly: s3PublicOnly(deps.config),
      credentials: deps.connections.destinations.custody,
      settings: deps.settings,
      clock: deps.clock,
      calls: deps.calls,
    }),
  });
  const backupEngine = createBackupEngine({
    repos,
    directory: sync.directory,
    connections: deps.connections.engineTokens,
    media: sync.media,
    destinations,
    pacer: sync.pacer,
    clock: deps.clock,
    settings: deps.settings,
    sessions: {
      seal: (uri) => encryptSecret(key, uri),
      open: (sealed) => decryptSecret(key, sealed),
    },
    ...(deps.sidecarFields ? { sidecarFields: deps.sidecarFields } : {}),
    ...logOf(deps),
    onFailed: failed,
  });
  const service = createBackupsService({
    backups: store.repo,
    posts: sync.repos.posts,
    directory: sync.directory,
    clock: deps.clock,
    enqueueBackups: store.enqueue,
  });
  // Connected as another account of a destination: what is backed up in the other one is
  // copied into this one (in the connection's transaction; the sync it starts queues them).
  deps.connections.events.accountChosen.on((trx, change) =>
    copyIntoChosenAccount(trx, change, deps.clock.now()),
  );
  const switcher = createDestinationSwitch({
    db: deps.db,
    clock: deps.clock,
    directory: sync.directory,
    startAfterConnect: (userId, accountIds) => sync.runs.startAfterConnect(userId, accountIds),
  });
  return {
    backupEngine,
    repos,
    destinations,
    service,
    events: { failed },
    routes: (app, guards) =>
      registerBackupsRoutes(app, { backups: service, destinations: switcher, guards }),
  };
}
