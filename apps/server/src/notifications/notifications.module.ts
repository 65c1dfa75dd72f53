import { AUTO_SYNC_TIERS } from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import type { BackupsModule, BackupsRepository } from "../backups/index.ts";
import type { BillingModule } from "../billing/index.ts";
import type { ConnectionsModule } from "../connections/index.ts";
import type { MailService } from "../mail/index.ts";
import type { AccountsRepository } from "../sync/index.ts";
import { type Alerts, createAlerts } from "./alerts.ts";
import { createNotificationsRepository } from "./notifications.repository.ts";
import { registerNotificationRoutes } from "./notifications.routes.ts";
import { createNotificationsService, type NotificationsService } from "./notifications.service.ts";

/**
 * The notifications area: the bell, Settings → Notifications, and the alerts. It listens to the
 * events of the areas it tells users about (no area imports notifications/).
 */
export function createNotificationsModule(
  deps: ModuleBase & {
    mail: MailService;
    /** The auth area's: whether a user's address is verified. */
    users: { emailVerified(userId: string): Promise<boolean> };
    connections: Pick<ConnectionsModule, "repo" | "health" | "events">;
    backups: { repo: BackupsRepository; events: BackupsModule["events"] };
    billing: { events: Pick<BillingModule["events"], "event"> };
    /** The sync area's account directory (owners, stale accounts, digest recipients). */
    accountsRepo: AccountsRepository;
  },
) {
  const { connections, accountsRepo } = deps;
  const connectionsRepo = connections.repo;
  const backupsReads = deps.backups.repo;
  const repo = createNotificationsRepository(deps.db);
  const notifications: NotificationsService = createNotificationsService({
    repo,
    clock: deps.clock,
    mail: deps.mail,
    appUrl: deps.config.appUrl,
    emailVerified: deps.users.emailVerified,
    ...logOf(deps),
  });
  const alerts: Alerts = createAlerts({
    notifications,
    repo,
    clock: deps.clock,
    sources: {
      accountOwner: async (accountId) => {
        const a = await accountsRepo.accountWithOwner(accountId);
        return a
          ? { user_id: a.user_id, username: a.username, destination: a.destination }
          : undefined;
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
      mayReceiveDigest: (userId) => deps.mail.mayReceive(userId, "digest_weekly"),
      // The health state's reading of failed backups (its words head the failure summary).
      failures: backupsReads.failuresByAccount,
      lostStories: backupsReads.lostStoriesByAccount,
      // What the resolution of open alerts reads.
      failedBackupsOf: backupsReads.failedBackupsOf,
      lastCompletedBy: backupsReads.lastCompletedByDestination,
      completedSince: async (userId, since) =>
        (await backupsReads.userSummary(userId, since)).backed_up_since,
      staleAccountIds: async (before) =>
        new Set(
          (await accountsRepo.staleAutoSyncAccounts(AUTO_SYNC_TIERS, before)).map((a) => a.id),
        ),
      stillNeedsReconnection: async (provider, subjectId) =>
        provider === "google"
          ? (await connectionsRepo.findGoogleConnection(subjectId))?.status === "needs_reconnection"
          : provider === "instagram"
            ? (await connectionsRepo.findInstagramAccountById(subjectId))?.status ===
              "needs_reconnection"
            : // Dropbox, OneDrive, S3: the subject is the user.
              (await connectionsRepo.destinationState(subjectId, provider)).needsReconnection,
    },
    ...logOf(deps),
  });
  // A connection that works again resolves its open alerts (issue 36); one a provider ended is
  // told at once, once per grant; backups that fail for good (the day's summary per account,
  // Drive full); failed payments, plan changes and the accounts a downgrade paused.
  connections.events.connected.on((userId, accountIds) =>
    alerts.connectionsRestored(userId, accountIds),
  );
  connections.events.needsReconnection.on((lost) => alerts.connectionLost(lost));
  // Dropbox, OneDrive and S3 storage as Google Drive: one alert per grant, resolved when connected.
  connections.events.destinationNeedsReconnection.on((lost) => alerts.destinationLost(lost));
  connections.events.destinationConnected.on((userId, kind) =>
    alerts.destinationRestored(userId, kind),
  );
  deps.backups.events.failed.on((failed) => alerts.backupFailed(failed));
  deps.billing.events.event.on((event) => alerts.billingEvent(event));
  return {
    notifications,
    alerts,
    routes: (app: FastifyInstance, guards: AuthGuards) =>
      registerNotificationRoutes(app, { notifications, guards }),
  };
}
