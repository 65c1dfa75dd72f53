import type { FastifyInstance } from "fastify";
import { createAccountsModule } from "./accounts/index.ts";
import { createAdminModule } from "./admin/index.ts";
import { createApiKeysModule } from "./api-keys/index.ts";
import type { AppContext, ContextDeps } from "./app-context.ts";
import { createArchiveModule } from "./archive/index.ts";
import { type AuthGuards, createAccountMailModule, createAuthModule } from "./auth/index.ts";
import { createBackupsModule, createBackupsStore } from "./backups/index.ts";
import { automaticBackupTiers, createBillingModule } from "./billing/index.ts";
import { createCommentsModule } from "./comments/index.ts";
import {
  createConnectionsModule,
  createDestinationConnectionsRepository,
} from "./connections/index.ts";
import { createContactModule } from "./contact/index.ts";
import { createHealthModule } from "./health/index.ts";
import { createImportModule } from "./import/index.ts";
import { jobRegistry } from "./job-registry.ts";
import { createJobQueue, QUEUE_SCHEMA } from "./jobs/queue.ts";
import { asError } from "./lib/log.ts";
import { createLibraryModule } from "./library/index.ts";
import { createMailModule } from "./mail/index.ts";
import { createNotificationsModule, NOTIFICATION_TEMPLATES } from "./notifications/index.ts";
import { createCallRecorder, createStatusModule } from "./status/index.ts";
import { createSyncModule, engineSettings } from "./sync/index.ts";
import { createUsersModule } from "./users/index.ts";
import { createV1Module } from "./v1/index.ts";

export type { AppContext, ContextDeps };

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
    schema: QUEUE_SCHEMA,
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
  // The alerts' and the digest's e-mails are defined in the notifications area.
  const mail = createMailModule({
    ...base,
    secrets,
    queue,
    users: auth.users,
    templates: NOTIFICATION_TEMPLATES,
  });
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
    disconnectDestinations: (userId) => connections.destinations.custody.disconnectAll(userId),
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
    destinations: backups.destinations,
  });
  const apiKeys = createApiKeysModule({ db, clock, userTier: connections.repo.userTier });
  const importer = createImportModule({
    ...base,
    secrets,
    connections,
    accountsRepo: sync.accountsRepo,
    posts: sync.repos.posts,
    destinations: backups.destinations,
  });
  const health = createHealthModule({
    clock,
    connectionsRepo: connections.repo,
    backupsRepo: backupsStore.repo,
    sync,
    billing,
    storage: createDestinationConnectionsRepository(db).list,
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
    queueSchema: QUEUE_SCHEMA,
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
