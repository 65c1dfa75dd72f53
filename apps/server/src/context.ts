import type { FastifyInstance } from "fastify";
import type pg from "pg";
import { type AccountsService, createAccountsModule } from "./accounts/index.ts";
import { type AdminService, createAdminModule } from "./admin/index.ts";
import { type ApiKeysService, createApiKeysModule } from "./api-keys/index.ts";
import { type ArchiveService, createArchiveModule } from "./archive/index.ts";
import {
  type AccountMailService,
  type AuthGuards,
  type AuthService,
  createAccountMailModule,
  createAuthModule,
} from "./auth/index.ts";
import {
  type BackupEngine,
  type BackupsRepositories,
  type BackupsService,
  createBackupsModule,
  createBackupsStore,
} from "./backups/index.ts";
import {
  automaticBackupTiers,
  type BillingService,
  type BillingWebhookService,
  createBillingModule,
} from "./billing/index.ts";
import { type CommentsService, createCommentsModule } from "./comments/index.ts";
import type { Config } from "./config.ts";
import { type Connections, createConnectionsModule } from "./connections/index.ts";
import { type ContactService, createContactModule } from "./contact/index.ts";
import type { Db } from "./db/database.ts";
import { createHealthModule, type HealthService } from "./health/index.ts";
import type { HttpRoot } from "./http/app.ts";
import { createImportModule, type ImportService } from "./import/index.ts";
import { jobRegistry } from "./job-registry.ts";
import { type AnyJob, createJobQueue, type JobQueue } from "./jobs/queue.ts";
import type { Clock } from "./lib/clock.ts";
import type { ServiceLog } from "./lib/log.ts";
import { asError } from "./lib/log.ts";
import type { Secrets } from "./lib/secrets.ts";
import {
  type CursorListingService,
  createLibraryModule,
  type DashboardService,
  type LibraryRepositories,
} from "./library/index.ts";
import { createMailModule, type MailService } from "./mail/index.ts";
import {
  type Alerts,
  createNotificationsModule,
  type NotificationsService,
} from "./notifications/index.ts";
import { createCallRecorder, createStatusModule, type StatusService } from "./status/index.ts";
import {
  type AccountsRepository,
  createSyncModule,
  type EngineSettings,
  engineSettings,
  type SyncModule,
  type SyncRunsService,
} from "./sync/index.ts";
import { createUsersModule, type UserDeletionService } from "./users/index.ts";
import { createV1Module, type V1Module } from "./v1/index.ts";

export interface ContextDeps {
  config: Config;
  db: Db;
  pool: pg.Pool;
  clock: Clock;
  secrets: Secrets;
  /** Where pg-boss connects, and the schema it keeps its tables in. */
  databaseUrl: string;
  queueSchema: string;
  /** Tests may run other job definitions than the registry's. */
  jobs?: readonly AnyJob<AppContext>[];
  /** Backup engine tunables (tests shrink waits, the benchmark sets the chunk size). */
  engineSettings?: Partial<EngineSettings>;
  /** Where services and jobs report what went wrong outside a request (JSON lines). */
  log?: ServiceLog;
}

/** What routes and job handlers receive: configuration, database, services. */
export interface AppContext extends ContextDeps, HttpRoot {
  /** /api/sync: `runs` (sync area) starts syncs and retries, `dashboard` (library) reads. */
  sync: { runs: SyncRunsService; dashboard: DashboardService };
  /** Retries of one backup or of every failed one (backups area). */
  backups: BackupsService;
  /** Every repository of the sync, backups and library areas (tests read them). */
  syncRepos: SyncModule["repos"] &
    Pick<BackupsRepositories, "folders"> &
    Pick<LibraryRepositories, "backups" | "listing" | "cursors">;
  syncEngine: SyncModule["syncEngine"];
  backupEngine: BackupEngine;
  engine: EngineSettings;
  auth: AuthService;
  /** The mail area: outbox, templates, categories and unsubscribe (mail/mail.service.ts). */
  mail: MailService;
  /** Forgot password, address verification, e-mail and password changes (auth area). */
  accountMail: AccountMailService;
  /** The notification centre (the bell, Settings → Notifications). */
  notifications: NotificationsService;
  /** Alert detection: hooks of the other areas and the periodic checks (notifications/alerts.ts). */
  alerts: Alerts;
  /** One health state per account and destination (issue 36, health/health.rules.ts). */
  health: HealthService;
  guards: AuthGuards;
  queue: JobQueue<AppContext>;
  /** The connections area: `oauth`, `tokens`, `profiles`, `health`. */
  connections: Connections;
  accounts: AccountsService;
  /** The accounts' rows as the scheduler reads them (with the owner and the sync state). */
  accountsRepo: AccountsRepository;
  userDeletion: UserDeletionService;
  admin: AdminService;
  contact: ContactService;
  status: StatusService;
  billing: BillingService;
  billingWebhooks: BillingWebhookService;
  apiKeys: ApiKeysService;
  /** Engagement history and posts no longer on Instagram (issue 30). */
  archive: ArchiveService;
  /** The public API's keyset pages of posts and backups. */
  listing: CursorListingService;
  /** onRequest hook of /api/v1: an API key, within its rate limit. */
  requireApiKey: V1Module["requireApiKey"];
  /** Settings → Import: Instagram's data export into Drive (issue 31). */
  importer: ImportService;
  /** Comments, for the accounts whose owner opts in. */
  comments: CommentsService;
  /** What other areas do when a sync or a post's backup ends (the sync jobs call them). */
  syncHooks: {
    afterBackup(postId: string): Promise<void>;
    afterSync(accountId: string): Promise<void>;
  };
}

/**
 * The composition root: builds each area from its module (`<area>/<area>.module.ts`, through its
 * index.ts) in an order where every area is built after the areas it uses; an earlier area
 * tells a later one through the hooks its module offers (`events`), which the later module
 * listens to. Routes and jobs receive what they use from here.
 */
export function createContext(deps: ContextDeps): AppContext {
  const { db, clock, config, secrets } = deps;
  const base = { db, clock, config, ...(deps.log ? { log: deps.log } : {}) };
  // Every provider call is counted for the status page's error rates.
  const calls = createCallRecorder({ db, clock });
  const queue = createJobQueue<AppContext>({
    connectionString: deps.databaseUrl,
    schema: deps.queueSchema,
    jobs: deps.jobs ?? jobRegistry,
    superviseIntervalSeconds: config.QUEUE_SUPERVISE_SECONDS,
    onError: (err) => deps.log?.error({ err: asError(err) }, "job queue error"),
  });
  const settings = engineSettings(deps.engineSettings);

  const connections = createConnectionsModule({ ...base, secrets, calls });
  const auth = createAuthModule({
    ...base,
    secrets,
    socialAccounts: connections.profiles.socialAccounts,
  });
  const mail = createMailModule({ ...base, secrets, queue, users: auth.users });
  const accountMail = createAccountMailModule({ ...base, auth, mail: mail.mail, queue });
  const billing = createBillingModule({
    ...base,
    applyAccountLimit: connections.repo.applyAccountLimit,
  });
  const archive = createArchiveModule({
    ...base,
    queue,
    listInstagramAccounts: (userId) => connections.profiles.listInstagramAccounts(userId),
  });
  // Backups' store first (sync claims through it and queues backups with it), its engine after.
  const backupsStore = createBackupsStore({ db, queue });
  const sync = createSyncModule({
    ...base,
    calls,
    queue,
    settings,
    connections,
    billing,
    backups: backupsStore.repo,
    enqueueBackups: backupsStore.enqueue,
    archive: archive.archive,
  });
  const backups = createBackupsModule({
    ...base,
    secrets,
    calls,
    settings,
    store: backupsStore,
    sync,
    connections,
    sidecarFields: archive.archive.sidecarFields,
  });
  const library = createLibraryModule({
    ...base,
    settings,
    sync,
    backups: backupsStore.repo,
    connections,
    archive: archive.archive,
  });
  const accounts = createAccountsModule({
    clock,
    profiles: connections.profiles,
    stats: {
      synced: (ids) => sync.repos.runs.accountSyncStats(ids),
      backedUp: (ids) => backupsStore.repo.completedByAccount(ids),
    },
    applyAccountLimit: connections.repo.applyAccountLimit,
  });
  const notifications = createNotificationsModule({
    ...base,
    mail: mail.mail,
    users: auth.users,
    connections,
    backups: { repo: backupsStore.repo, events: backups.events },
    billing,
    accountsRepo: sync.accountsRepo,
  });
  const users = createUsersModule({
    ...base,
    auth: auth.auth,
    disconnectGoogle: (userId) => connections.tokens.disconnectGoogle(userId),
    revokeFacebook: (userId) => connections.tokens.revokeFacebookGrants(userId),
    forgetBillingCustomer: (userId) => billing.billing.forgetCustomer(userId),
    queue,
    forgetMail: (userId, email) => mail.mail.forgetUser(userId, email),
  });
  const admin = createAdminModule({
    repo: auth.adminUsers,
    auth: auth.auth,
    deletion: users.userDeletion,
    accountIds: async (userId) =>
      (await connections.profiles.listInstagramAccounts(userId)).map((a) => a.id),
    queue,
  });
  const contact = createContactModule({ ...base, mail: mail.mail });
  const status = createStatusModule({ ...base, calls, queue, mail: mail.mail });
  const comments = createCommentsModule({
    ...base,
    calls,
    queue,
    connections,
    accountsRepo: sync.accountsRepo,
    pacer: sync.pacer,
    postLookups: library.postLookups,
  });
  const apiKeys = createApiKeysModule({ db, clock, userTier: connections.repo.userTier });
  const importer = createImportModule({
    ...base,
    secrets,
    calls,
    settings,
    connections,
    accountsRepo: sync.accountsRepo,
    posts: sync.repos.posts,
    folders: backups.repos.folders,
  });
  const health = createHealthModule({
    clock,
    connectionsRepo: connections.repo,
    backupsRepo: backupsStore.repo,
    sync,
  });
  const v1 = createV1Module({
    clock,
    accounts: accounts.accounts,
    apiKeys: apiKeys.apiKeys,
    hitRateWindow: apiKeys.hitRateWindow,
    listing: library.listing,
    sync: { runs: sync.runs, dashboard: library.dashboard },
    backups: backups.service,
    health: health.health,
  });

  // Every area's routes, in this order, with auth's request guards.
  const areaRoutes: ((app: FastifyInstance, guards: AuthGuards) => unknown)[] = [
    accountMail.routes,
    users.routes,
    connections.routes,
    accounts.routes,
    sync.routes,
    health.routes,
    library.routes,
    backups.routes,
    archive.routes,
    admin.routes,
    contact.routes,
    status.routes,
    billing.routes,
    apiKeys.routes,
    v1.routes,
    importer.routes,
    comments.routes,
    mail.routes,
    notifications.routes,
  ];
  return {
    ...deps,
    async registerRoutes(app) {
      for (const register of areaRoutes) await register(app, auth.guards);
    },
    clusterMetrics: {
      queueStats: () => queue.stats(),
      syncLags: () => sync.accountsRepo.autoSyncLags(automaticBackupTiers()),
    },
    health: health.health,
    importer: importer.importer,
    archive: archive.archive,
    apiKeys: apiKeys.apiKeys,
    listing: library.listing,
    requireApiKey: v1.requireApiKey,
    contact: contact.contact,
    status: status.status,
    auth: auth.auth,
    mail: mail.mail,
    accountMail: accountMail.accountMail,
    notifications: notifications.notifications,
    alerts: notifications.alerts,
    guards: auth.guards,
    queue,
    connections,
    accounts: accounts.accounts,
    accountsRepo: sync.accountsRepo,
    userDeletion: users.userDeletion,
    admin: admin.admin,
    billing: billing.billing,
    billingWebhooks: billing.billingWebhooks,
    comments: comments.comments,
    syncHooks: comments.syncHooks,
    sync: { runs: sync.runs, dashboard: library.dashboard },
    backups: backups.service,
    syncRepos: {
      ...sync.repos,
      backups: backupsStore.repo,
      folders: backups.repos.folders,
      listing: library.repos.listing,
      cursors: library.repos.cursors,
    },
    syncEngine: sync.syncEngine,
    backupEngine: backups.backupEngine,
    engine: settings,
  };
}
