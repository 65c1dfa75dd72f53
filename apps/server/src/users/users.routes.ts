import { deleteAccountRequest, deletionResponse } from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { type AuthGuards, type AuthService, principalOf } from "../auth/index.ts";
import type { UserDeletionService } from "./user-deletion.service.ts";

/** What these routes use of the application. */
export interface UserRouteDeps {
  auth: AuthService;
  guards: AuthGuards;
  userDeletion: UserDeletionService;
}

/** Settings → Profile → Delete my account, confirmed with the password (under /api/auth). */
export function registerUserRoutes(app: FastifyInstance, ctx: UserRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.delete(
    "/api/auth/me",
    {
      onRequest: ctx.guards.requireUser,
      schema: { tags: ["auth"], body: deleteAccountRequest, response: { 200: deletionResponse } },
    },
    async (req) => {
      const { user: me } = principalOf(req);
      await ctx.auth.verifyPassword(me, req.body.password);
      return ctx.userDeletion.deleteUser(me);
    },
  );
}
