import type { FastifyInstance } from "fastify";
import type { ModuleBase } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import { registerAccountRoutes } from "./accounts.routes.ts";
import {
  type AccountsService,
  type AccountsServiceDeps,
  createAccountsService,
} from "./accounts.service.ts";

/** The accounts panel: the list with counts of the sync and backups areas, disconnect, keep. */
export function createAccountsModule(
  deps: Pick<ModuleBase, "clock"> & {
    /** The connections area's account profiles. */
    profiles: AccountsServiceDeps["profiles"];
    /** Counts of the sync and backups areas, asked of their repositories. */
    stats: NonNullable<AccountsServiceDeps["stats"]>;
    /** The connections area's: pauses the accounts beyond the limit. */
    applyAccountLimit: NonNullable<AccountsServiceDeps["applyAccountLimit"]>;
  },
) {
  const accounts: AccountsService = createAccountsService({
    profiles: deps.profiles,
    clock: deps.clock,
    stats: deps.stats,
    applyAccountLimit: deps.applyAccountLimit,
  });
  return {
    accounts,
    routes: (app: FastifyInstance, guards: AuthGuards) =>
      registerAccountRoutes(app, { accounts, guards }),
  };
}
