import type { FastifyInstance } from "fastify";
import type { AuthGuards } from "../auth/index.ts";
import { registerAdminRoutes } from "./admin.routes.ts";
import { type AdminService, type AdminServiceDeps, createAdminService } from "./admin.service.ts";

/** The admin area: user list and toggles, deletion, the contact inbox. */
export function createAdminModule(deps: AdminServiceDeps) {
  const admin: AdminService = createAdminService(deps);
  return {
    admin,
    routes: (app: FastifyInstance, guards: AuthGuards) =>
      registerAdminRoutes(app, { admin, guards }),
  };
}
