import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase } from "../area-module.ts";
import type { AuthGuards, AuthService } from "../auth/index.ts";
import { createUserDeletionRepository } from "./user-deletion.repository.ts";
import {
  createUserDeletionService,
  type UserDeletionDeps,
  type UserDeletionService,
} from "./user-deletion.service.ts";
import { registerUserRoutes } from "./users.routes.ts";

/** A user's profile and deleting a user everywhere (Stripe, Google, Facebook, rows, jobs). */
export function createUsersModule(
  deps: ModuleBase &
    Pick<
      UserDeletionDeps,
      "disconnectGoogle" | "disconnectDestinations" | "revokeFacebook" | "forgetBillingCustomer"
    > & {
      queue: UserDeletionDeps["queue"];
      forgetMail: NonNullable<UserDeletionDeps["forgetMail"]>;
      auth: AuthService;
    },
) {
  const userDeletion: UserDeletionService = createUserDeletionService({
    repo: createUserDeletionRepository(deps.db),
    disconnectGoogle: deps.disconnectGoogle,
    disconnectDestinations: deps.disconnectDestinations,
    revokeFacebook: deps.revokeFacebook,
    forgetBillingCustomer: deps.forgetBillingCustomer,
    queue: deps.queue,
    forgetMail: deps.forgetMail,
    ...logOf(deps),
  });
  return {
    userDeletion,
    routes: (app: FastifyInstance, guards: AuthGuards) =>
      registerUserRoutes(app, { auth: deps.auth, guards, userDeletion }),
  };
}
