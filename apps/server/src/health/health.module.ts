import { AUTO_SYNC_TIERS } from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ModuleBase } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import type { BackupsRepository } from "../backups/index.ts";
import type { BillingModule } from "../billing/index.ts";
import type { ConnectionsRepository } from "../connections/index.ts";
import type { SyncModule } from "../sync/index.ts";
import { registerHealthStateRoutes } from "./health.routes.ts";
import { createHealthService, type HealthService, type HealthSources } from "./health.service.ts";

/** One health state per account and destination (issue 36), read of the other areas' rows. */
export function createHealthModule(
  deps: Pick<ModuleBase, "clock"> & {
    connectionsRepo: Pick<ConnectionsRepository, "listInstagramAccounts" | "findGoogleConnection">;
    backupsRepo: Pick<
      BackupsRepository,
      | "failuresByAccount"
      | "lastCompletedAt"
      | "lastCompletedByDestination"
      | "syncProgress"
      | "throttledByAccount"
      | "lostStoriesByAccount"
    >;
    sync: Pick<SyncModule, "runs" | "repos" | "accountsRepo">;
    billing: Pick<BillingModule, "pastDue">;
    /** The user's Dropbox, OneDrive and S3 connections (`destination_connections`). */
    storage?: HealthSources["storage"];
  },
) {
  const { connectionsRepo, backupsRepo, sync, billing } = deps;
  const health: HealthService = createHealthService({
    clock: deps.clock,
    sources: {
      accounts: connectionsRepo.listInstagramAccounts,
      drive: connectionsRepo.findGoogleConnection,
      ...(deps.storage ? { storage: deps.storage } : {}),
      failures: backupsRepo.failuresByAccount,
      lastCompletedAt: backupsRepo.lastCompletedAt,
      lastCompletedBy: backupsRepo.lastCompletedByDestination,
      recentRuns: (userId) => sync.runs.syncJobs(userId, 20),
      progress: backupsRepo.syncProgress,
      throttled: backupsRepo.throttledByAccount,
      stale: (userId, before) =>
        sync.accountsRepo.staleAutoSyncAccounts(AUTO_SYNC_TIERS, before, userId),
      lostStories: backupsRepo.lostStoriesByAccount,
      payment: billing.pastDue,
      lastCompletedRun: async (userId) => {
        const at = (await sync.repos.runs.lastCompletedSync(userId))?.at;
        return at ? new Date(at) : null;
      },
    },
  });
  return {
    health,
    routes: (app: FastifyInstance, guards: AuthGuards) =>
      registerHealthStateRoutes(app, { health, guards }),
  };
}
