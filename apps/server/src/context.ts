import { hostname } from "node:os";
import { API_RATE_LIMIT_PER_MINUTE, AUTO_SYNC_TIERS } from "@keepsake/contracts";
import type pg from "pg";
import { type AccountsService, createAccountsService } from "./accounts/accounts.service.ts";
import { type AdminService, createAdminService } from "./admin/admin.service.ts";
import { createApiKeysRepository } from "./api-keys/api-keys.repository.ts";
import { type ApiKeysService, createApiKeysService } from "./api-keys/api-keys.service.ts";
import { createArchiveRepository } from "./archive/archive.repository.ts";
import { type ArchiveService, createArchiveService } from "./archive/archive.service.ts";
import { refreshSidecarJob, sidecarSingletonKey } from "./archive/jobs/refresh-sidecar.job.ts";
import { type AccountMailService, createAccountMailService } from "./auth/account-mail.service.ts";
import { createAdminRepository } from "./auth/admin-users.repository.ts";
import { authGuards } from "./auth/auth.guards.ts";
import { createAuthRepository } from "./auth/auth.repository.ts";
import { type AuthService, createAuthService } from "./auth/auth.service.ts";
import type { BackupEngine } from "./backups/backup.engine.ts";
import {
  backupEnqueuer,
  backupsRepository,
  createBackupsModule,
} from "./backups/backups.module.ts";
import type { BackupsRepositories } from "./backups/backups.repositories.ts";
import { type BackupsService, createBackupsService } from "./backups/backups.service.ts";
import { createBillingRepository } from "./billing/billing.repository.ts";
import { type BillingService, createBillingService } from "./billing/billing.service.ts";
import {
  type BillingWebhookService,
  createBillingWebhookService,
} from "./billing/billing-webhook.service.ts";
import { createCommentsRepository } from "./comments/comments.repository.ts";
import { type CommentsService, createCommentsService } from "./comments/comments.service.ts";
import { commentsSingletonKey, refreshCommentsJob } from "./comments/refresh-comments.job.ts";
import type { Config } from "./config.ts";
import { type Connections, createConnections } from "./connections/connections.module.ts";
import { createConnectionsRepository } from "./connections/connections.repository.ts";
import { createOAuthStates } from "./connections/oauth-state.ts";
import { createPlatformSignalsRepository } from "./connections/platform-signals.repository.ts";
import { createContactRepository } from "./contact/contact.repository.ts";
import { type ContactService, createContactService } from "./contact/contact.service.ts";
import type { Db } from "./db/database.ts";
import { inTransaction } from "./db/transaction.ts";
import { createHealthService, type HealthService } from "./health/health.service.ts";
import { createImportRepository } from "./import/import.repository.ts";
import { createImportService, type ImportService } from "./import/import.service.ts";
import { jobRegistry } from "./job-registry.ts";
import { type AnyJob, createJobQueue, type JobQueue } from "./jobs/queue.ts";
import type { Clock } from "./lib/clock.ts";
import { decryptSecret, encryptSecret } from "./lib/crypto.ts";
import type { ServiceLog } from "./lib/log.ts";
import { asError } from "./lib/log.ts";
import type { Secrets } from "./lib/secrets.ts";
import type { CursorListingService } from "./library/cursor-listing.service.ts";
import type { DashboardService } from "./library/dashboard.service.ts";
import { createLibraryModule } from "./library/library.module.ts";
import type { LibraryRepositories } from "./library/library.repositories.ts";
import { createPostLookupsRepository } from "./library/post-lookups.repository.ts";
import { createMailRepository } from "./mail/mail.repository.ts";
import { createMailService, type MailService } from "./mail/mail.service.ts";
import { createSmtpSender } from "./mail/smtp.ts";
import { createAlertResolution } from "./notifications/alert-resolution.ts";
import { type Alerts, createAlerts } from "./notifications/alerts.ts";
import { createNotificationsRepository } from "./notifications/notifications.repository.ts";
import {
  createNotificationsService,
  type NotificationsService,
} from "./notifications/notifications.service.ts";
import { createFacebookClient } from "./providers/facebook/facebook.client.ts";
import { createGoogleOAuthClient } from "./providers/google/google-oauth.client.ts";
import { createCommentsClient } from "./providers/instagram/comments.client.ts";
import { createInstagramClient } from "./providers/instagram/instagram.client.ts";
import { createStripeClient } from "./providers/stripe/stripe.client.ts";
import { createCallRecorder } from "./status/call-stats.ts";
import { createStatusRepository } from "./status/status.repository.ts";
import { createStatusService, type StatusService } from "./status/status.service.ts";
import {
  type AccountsRepository,
  createAccountsRepository,
} from "./sync/account-directory.repository.ts";
import { createPostsRepository } from "./sync/posts.repository.ts";
import {
  createSyncModule,
  type EngineSettings,
  engineSettings,
  type SyncModule,
} from "./sync/sync.module.ts";
import type { SyncRunsService } from "./sync/sync-runs.service.ts";
import { createUserDeletionRepository } from "./users/user-deletion.repository.ts";
import {
  createUserDeletionService,
  type UserDeletionService,
} from "./users/user-deletion.service.ts";
import { createRateLimiter } from "./v1/rate-limit.ts";
import { apiKeyGuard } from "./v1/v1.auth.ts";

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
export interface AppContext extends ContextDeps {
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
  guards: ReturnType<typeof authGuards>;
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
  requireApiKey: ReturnType<typeof apiKeyGuard>;
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

/** Wires repositories and services once; routes and jobs receive what they use from here. */
export function createContext(deps: ContextDeps): AppContext {
  const providers = deps.config.providers;
  // Every provider call is counted for the status page's error rates.
  const calls = createCallRecorder({ db: deps.db, clock: deps.clock });
  const connectionsRepo = createConnectionsRepository(deps.db);
  const accountsRepo = createAccountsRepository(deps.db);
  const connections = createConnections({
    repo: connectionsRepo,
    states: createOAuthStates({
      repo: connectionsRepo,
      clock: deps.clock,
      key: deps.secrets.jwtSecret,
    }),
    clock: deps.clock,
    encryptionKey: deps.secrets.encryptionKey,
    appUrl: deps.config.appUrl,
    signalsRepo: createPlatformSignalsRepository(deps.db),
    metaSecrets: {
      instagram: providers.instagram.clientSecret,
      facebook: providers.facebook.appSecret,
    },
    googleClientId: providers.google.clientId,
    instagram: createInstagramClient(
      { ...providers.instagram, graphVersion: providers.graphVersion },
      calls.fetchFor("instagram"),
    ),
    facebook: createFacebookClient(
      { ...providers.facebook, graphVersion: providers.graphVersion },
      calls.fetchFor("instagram"),
    ),
    google: createGoogleOAuthClient(providers.google, calls.fetchFor("google")),
    ...(deps.log ? { log: deps.log } : {}),
    // Connecting starts the first sync at once, on every plan (the sync module comes below).
    // A connection that works again resolves its open alerts (issue 36).
    onConnected: async (userId, accountIds) => {
      await resolution.connectionsRestored(userId, accountIds);
      return sync.runs.startAfterConnect(userId, accountIds);
    },
    // A connection a provider ended: the user is told at once, once per grant.
    onNeedsReconnection: (lost) => alerts.connectionLost(lost),
    // A disconnected account's running syncs end; a freed slot resumes a paused account.
    onDisconnected: async (userId, limit) => {
      await sync.runs.endRunsOfDisconnectedAccounts(userId);
      await connectionsRepo.applyAccountLimit(userId, limit);
    },
  });
  const accounts = createAccountsService({
    profiles: connections.profiles,
    clock: deps.clock,
    // Counts of the sync and backups areas, asked of their repositories (created below).
    stats: {
      synced: (ids) => sync.repos.runs.accountSyncStats(ids),
      backedUp: (ids) => backupsRepo.completedByAccount(ids),
    },
    applyAccountLimit: connectionsRepo.applyAccountLimit,
  });
  const billingSettings = deps.config.billing;
  const stripe = billingSettings ? createStripeClient(billingSettings) : null;
  const billingRepo = createBillingRepository(deps.db);
  const billing = createBillingService({
    repo: billingRepo,
    stripe,
    settings: billingSettings,
    appUrl: deps.config.appUrl,
    ...(deps.log ? { log: deps.log } : {}),
  });
  const billingWebhooks = createBillingWebhookService({
    repo: billingRepo,
    stripe,
    settings: billingSettings,
    clock: deps.clock,
    applyAccountLimit: connectionsRepo.applyAccountLimit,
    // A plan change applies its limits and starts what it unlocks at once (the sync module
    // comes below).
    applyPostLimit: (userId, tier) => sync.runs.applyPostLimit(userId, tier),
    onPlanChanged: async (userId, tier) => {
      await sync.runs.startAfterPlanChange(userId, tier);
    },
    // Failed payments, plan changes and the accounts a downgrade paused are alerts.
    onEvent: (event) => alerts.billingEvent(event),
    ...(deps.log ? { log: deps.log } : {}),
  });
  const authRepo = createAuthRepository(deps.db);
  const auth = createAuthService({
    repo: authRepo,
    clock: deps.clock,
    jwtSecret: deps.secrets.jwtSecret,
    config: deps.config,
    socialAccounts: connections.profiles.socialAccounts,
  });
  const queue = createJobQueue<AppContext>({
    connectionString: deps.databaseUrl,
    schema: deps.queueSchema,
    jobs: deps.jobs ?? jobRegistry,
    superviseIntervalSeconds: deps.config.QUEUE_SUPERVISE_SECONDS,
    onError: (err) => deps.log?.error({ err: asError(err) }, "job queue error"),
  });
  const archive = createArchiveService({
    repo: createArchiveRepository(deps.db),
    clock: deps.clock,
    async refreshSidecars(posts) {
      await queue.insert(
        refreshSidecarJob,
        posts.map((p) => ({
          data: p,
          singletonKey: sidecarSingletonKey(p.accountId, p.instagramId),
        })),
      );
    },
    async accountNames(userId) {
      const accounts = await connections.profiles.listInstagramAccounts(userId);
      return new Map(accounts.map((a) => [a.id, a.username]));
    },
    ...(deps.log ? { log: deps.log } : {}),
  });
  // What the engines and the sync services use of each part of the connections area.
  const engineConnections = {
    googleAccessToken: connections.tokens.googleAccessToken,
    instagramAccessToken: connections.tokens.instagramAccessToken,
    openInstagramToken: connections.tokens.openInstagramToken,
    markInstagramNeedsReconnection: connections.health.markInstagramNeedsReconnection,
    refreshStaleProfiles: connections.profiles.refreshStaleProfiles,
  };
  const directory = {
    accountWithOwner: accountsRepo.accountWithOwner,
    accountForSync: accountsRepo.accountForSync,
    userAccounts: connectionsRepo.userAccounts,
    userTier: connectionsRepo.userTier,
    findGoogleConnection: connectionsRepo.findGoogleConnection,
  };
  const settings = engineSettings(deps.engineSettings);
  const log = deps.log ? { log: deps.log } : {};
  const backupsRepo = backupsRepository(deps.db);
  // Sync reads Instagram; it is handed what it asks of backups (claims, retries, the queue).
  const mail = createMailService({
    repo: createMailRepository(deps.db),
    clock: deps.clock,
    queue,
    smtp: createSmtpSender({
      url: deps.config.SMTP_URL,
      timeoutMs: deps.config.MAIL_SMTP_TIMEOUT_SECONDS * 1000,
    }),
    from: deps.config.MAIL_FROM,
    appUrl: deps.config.appUrl,
    secret: deps.secrets.jwtSecret,
    sealKey: deps.secrets.encryptionKey,
    users: {
      async address(userId) {
        const user = await authRepo.findUserById(userId);
        return user ? { email: user.email, verified: user.email_verified_at !== null } : null;
      },
    },
    settings: {
      smtpTimeoutMs: deps.config.MAIL_SMTP_TIMEOUT_SECONDS * 1000,
      retryBaseMs: deps.config.MAIL_RETRY_BASE_SECONDS * 1000,
      maxAttempts: deps.config.MAIL_MAX_ATTEMPTS,
      capsPerHour: {
        contact: deps.config.MAIL_HOURLY_CAP_CONTACT,
        "status-confirm": deps.config.MAIL_HOURLY_CAP_STATUS_CONFIRM,
        registration: deps.config.MAIL_HOURLY_CAP_REGISTRATION,
        "password-reset": deps.config.MAIL_HOURLY_CAP_PASSWORD_RESET,
      },
    },
    ...(deps.log ? { log: deps.log } : {}),
  });
  const accountMail = createAccountMailService({
    repo: authRepo,
    clock: deps.clock,
    mail,
    queue,
    appUrl: deps.config.appUrl,
    supportEmail: deps.config.SUPPORT_EMAIL,
    limits: {
      perAddress: deps.config.ACCOUNT_MAIL_MAX_PER_HOUR,
      perClient: deps.config.ACCOUNT_MAIL_MAX_PER_HOUR * 4,
    },
    ...(deps.log ? { log: deps.log } : {}),
  });
  const notificationsRepo = createNotificationsRepository(deps.db);
  const notifications = createNotificationsService({
    repo: notificationsRepo,
    clock: deps.clock,
    mail,
    appUrl: deps.config.appUrl,
    async emailVerified(userId) {
      return (await authRepo.findUserById(userId))?.email_verified_at != null;
    },
    ...(deps.log ? { log: deps.log } : {}),
  });
  const backupsReads = backupsRepository(deps.db);
  const resolution = createAlertResolution({
    notifications,
    sources: {
      failedBackupsOf: backupsReads.failedBackupsOf,
      completedSince: async (userId, since) =>
        (await backupsReads.userSummary(userId, since)).backed_up_since,
      staleAccountIds: async (before) =>
        new Set(
          (await accountsRepo.staleAutoSyncAccounts(AUTO_SYNC_TIERS, before)).map((a) => a.id),
        ),
      stillNeedsReconnection: async (provider, subjectId) =>
        provider === "google"
          ? (await connectionsRepo.findGoogleConnection(subjectId))?.status === "needs_reconnection"
          : (await connectionsRepo.findInstagramAccountById(subjectId))?.status ===
            "needs_reconnection",
    },
  });
  const alerts = createAlerts({
    notifications,
    resolution,
    repo: notificationsRepo,
    clock: deps.clock,
    sources: {
      accountOwner: async (accountId) => {
        const a = await accountsRepo.accountWithOwner(accountId);
        return a ? { user_id: a.user_id, username: a.username } : undefined;
      },
      expiringTokens: connectionsRepo.expiringTokens,
      staleAccounts: (before) => accountsRepo.staleAutoSyncAccounts(AUTO_SYNC_TIERS, before),
      expiredStories: backupsReads.expiredStoriesNotBackedUp,
      pausedAccounts: async (userId) =>
        (await connectionsRepo.userAccounts(userId))
          .filter((a) => a.paused_by_plan)
          .map((a) => a.username),
      digestUsers: accountsRepo.usersWithAccounts,
      userSummary: backupsReads.userSummary,
      connectionActions: async (userId) =>
        (await connections.health.connectionStatus(userId)).actions,
      mayReceiveDigest: (userId) => mail.mayReceive(userId, "digest_weekly"),
    },
    ...(deps.log ? { log: deps.log } : {}),
  });
  const sync = createSyncModule({
    archive,
    db: deps.db,
    clock: deps.clock,
    config: deps.config,
    connections: engineConnections,
    directory,
    queue,
    settings,
    backups: backupsRepo,
    enqueueBackups: backupEnqueuer(queue),
    fetchFor: calls.fetchFor,
    ...log,
  });
  const backups = createBackupsModule({
    db: deps.db,
    clock: deps.clock,
    config: deps.config,
    backups: backupsRepo,
    posts: sync.repos.posts,
    runs: sync.repos.runs,
    media: sync.media,
    pacer: sync.pacer,
    connections: engineConnections,
    directory,
    settings,
    encryptionKey: deps.secrets.encryptionKey,
    sidecarFields: archive.sidecarFields,
    fetchFor: calls.fetchFor,
    streamedFor: calls.streamedFor,
    // Backups that fail for good: the day's summary per account, Drive full.
    onBackupFailed: (failed) => alerts.backupFailed(failed),
    ...log,
  });
  const library = createLibraryModule({
    archive,
    db: deps.db,
    clock: deps.clock,
    posts: sync.repos.posts,
    runs: sync.repos.runs,
    backups: backupsRepo,
    media: sync.media,
    connections: engineConnections,
    directory,
    settings,
  });
  const userDeletion = createUserDeletionService({
    repo: createUserDeletionRepository(deps.db),
    disconnectGoogle: (userId) => connections.tokens.disconnectGoogle(userId),
    revokeFacebook: (userId) => connections.tokens.revokeFacebookGrants(userId),
    forgetBillingCustomer: (userId) => billing.forgetCustomer(userId),
    queue,
    forgetMail: (userId, email) => mail.forgetUser(userId, email),
    ...(deps.log ? { log: deps.log } : {}),
  });
  const admin = createAdminService({
    repo: createAdminRepository(deps.db),
    auth,
    deletion: userDeletion,
    accountIds: async (userId) =>
      (await connections.profiles.listInstagramAccounts(userId)).map((a) => a.id),
    queue,
  });
  const contact = createContactService({
    repo: createContactRepository(deps.db),
    clock: deps.clock,
    maxPerHour: deps.config.CONTACT_MAX_PER_HOUR,
    mail,
    ...(deps.log ? { log: deps.log } : {}),
  });
  const status = createStatusService({
    repo: createStatusRepository(deps.db),
    clock: deps.clock,
    calls,
    queue,
    workerId: `${hostname()}:${process.pid}`,
    subscribeMaxPerHour: deps.config.STATUS_SUBSCRIBE_MAX_PER_HOUR,
    mail,
    appUrl: deps.config.appUrl,
    ...(deps.log ? { log: deps.log } : {}),
    async probeApi() {
      const res = await fetch(`${deps.config.appUrl}/api/health`, {
        signal: AbortSignal.timeout(5000),
      });
      return res.ok;
    },
  });
  const postLookups = createPostLookupsRepository(deps.db);
  const comments = createCommentsService({
    repo: createCommentsRepository(deps.db),
    directory: {
      userAccounts: (userId) => connections.profiles.listInstagramAccounts(userId),
      account: (accountId) => accountsRepo.accountWithOwner(accountId),
      post: postLookups.post,
      backedUpPosts: postLookups.backedUpPosts,
      sidecarOf: postLookups.sidecarOf,
      instagramAccessToken: connections.tokens.instagramAccessToken,
      startGrant: (userId, via, scopes, purpose) =>
        connections.oauth.startGrant(userId, via, scopes, purpose),
    },
    client: createCommentsClient(
      {
        instagramGraphUrl: providers.instagram.graphUrl,
        facebookGraphUrl: providers.facebook.graphUrl,
        graphVersion: providers.graphVersion,
      },
      {
        fetch: calls.fetchFor("instagram"),
        onUsage: (key, usage) => sync.pacer.record(key, usage),
      },
    ),
    destination: backups.destinations.googleDrive,
    graph: (key, fn) => sync.pacer.call(key, fn),
    clock: deps.clock,
    async enqueue(accountId) {
      await queue.send(
        refreshCommentsJob,
        { accountId },
        { singletonKey: commentsSingletonKey(accountId), startAfter: 2 },
      );
    },
    ...(deps.log ? { log: deps.log } : {}),
  });
  const apiKeysRepo = createApiKeysRepository(deps.db);
  const apiKeys = createApiKeysService({
    repo: apiKeysRepo,
    clock: deps.clock,
    userTier: async (userId) => (await connectionsRepo.userTier(userId)) ?? "free",
  });
  const limiter = createRateLimiter({
    limit: API_RATE_LIMIT_PER_MINUTE,
    windowMs: 60_000,
    clock: deps.clock,
    count: (keyId, windowStart) => apiKeysRepo.hitRateWindow(keyId, windowStart),
  });
  const importer = createImportService({
    repo: createImportRepository(deps.db),
    directory: {
      accountWithOwner: accountsRepo.accountWithOwner,
      userTier: connectionsRepo.userTier,
      findGoogleConnection: connectionsRepo.findGoogleConnection,
      postsForImportMatch: sync.repos.posts.postsForImportMatch,
      newestPostTimes: sync.repos.posts.newestPostTimes,
      // The post and its completed backup in one transaction: a crash between them would leave
      // an imported post without a backup, which a sync could then claim for the Graph API.
      async recordImportedPost({ backup, ...post }) {
        const now = deps.clock.now();
        await inTransaction(deps.db, async (tx) => {
          const postId = await createPostsRepository(tx).recordImported(post, now);
          if (postId) {
            await backupsRepository(tx).recordImportedBackup(
              { ...backup, ...post, post_id: postId },
              now,
            );
          }
        });
      },
    },
    // The import writes through the backups' destination: the same folders, uploader and ledger.
    destination: backups.destinations.googleDrive,
    sessions: {
      seal: (uri) => encryptSecret(deps.secrets.encryptionKey, uri),
      open: (sealed) => decryptSecret(deps.secrets.encryptionKey, sealed),
    },
    clock: deps.clock,
  });
  const health = createHealthService({
    clock: deps.clock,
    sources: {
      accounts: connectionsRepo.listInstagramAccounts,
      drive: connectionsRepo.findGoogleConnection,
      failures: backupsReads.failuresByAccount,
      lastCompletedAt: backupsReads.lastCompletedAt,
      recentRuns: (userId) => sync.runs.syncJobs(userId, 20),
      lastCompletedRun: async (userId) => {
        const at = (await sync.repos.runs.lastCompletedSync(userId))?.at;
        return at ? new Date(at) : null;
      },
    },
  });
  return {
    ...deps,
    health,
    importer,
    archive,
    apiKeys,
    listing: library.listing,
    requireApiKey: apiKeyGuard(apiKeys, limiter),
    contact,
    status,
    auth,
    mail,
    accountMail,
    notifications,
    alerts,
    guards: authGuards(auth),
    queue,
    connections,
    accounts,
    accountsRepo,
    userDeletion,
    admin,
    billing,
    billingWebhooks,
    comments,
    syncHooks: {
      // Never fails the sync or the backup that calls it.
      afterBackup: (postId) =>
        comments
          .afterBackup(postId)
          .catch((err) => deps.log?.warn({ postId, err: asError(err) }, "comments not queued")),
      afterSync: (accountId) =>
        comments
          .afterSync(accountId)
          .catch((err) => deps.log?.warn({ accountId, err: asError(err) }, "comments not queued")),
    },
    sync: { runs: sync.runs, dashboard: library.dashboard },
    backups: createBackupsService({
      backups: backupsRepo,
      posts: sync.repos.posts,
      directory,
      clock: deps.clock,
      enqueueBackups: backupEnqueuer(queue),
    }),
    syncRepos: {
      ...sync.repos,
      backups: backupsRepo,
      folders: backups.repos.folders,
      listing: library.repos.listing,
      cursors: library.repos.cursors,
    },
    syncEngine: sync.syncEngine,
    backupEngine: backups.backupEngine,
    engine: settings,
  };
}
